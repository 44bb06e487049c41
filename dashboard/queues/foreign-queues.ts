import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { discoverQueues, discoveryPrefixes } from './queue-discovery';
import { readStateCounts, stateCountsSchema } from './queue-overview';

export const foreignQueueSchema = z.object({
  ref: z.string(),
  name: z.string(),
  prefix: z.string(),
  paused: z.boolean(),
  counts: stateCountsSchema,
});
export type ForeignQueue = z.infer<typeof foreignQueueSchema>;

export const foreignQueuesSchema = z.object({
  queues: z.array(foreignQueueSchema),
  /** Discovery stopped at its budget: there may be more queues than listed. */
  truncated: z.boolean(),
  prefixes: z.array(z.string()),
});
export type ForeignQueues = z.infer<typeof foreignQueuesSchema>;

/**
 * The BullMQ queues under the configured prefixes that the job table does not define,
 * each with its counts per state (one script call each) and paused flag.
 */
export async function readForeignQueues(bullpen: Bullpen): Promise<ForeignQueues> {
  const discovery = await discoverQueues(bullpen);
  const foreign = discovery.queues.filter((q) => !q.own);
  const queues = await Promise.all(
    foreign.map(async (q) => {
      // Discovery just found its meta key: no second existence check (resolveQueue is for references from a URL).
      const queue = bullpen.queues.foreign(q.prefix, q.name);
      const [counts, paused] = await Promise.all([readStateCounts(queue), queue.isPaused()]);
      return { ref: q.ref, name: q.name, prefix: q.prefix, paused, counts };
    }),
  );
  return { queues, truncated: discovery.truncated, prefixes: discoveryPrefixes(bullpen) };
}
