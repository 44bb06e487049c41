import 'server-only';
import type { Job } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { FLOW_CHILDREN_SHOWN } from '@/dashboard/client/job-flow-limits';

export const flowNodeSchema = z.object({
  queue: z.string(),
  id: z.string(),
  /** The job's state now; `gone` once retention removed it, `unknown` in a queue this build does not know. */
  state: z.string(),
  /** Whether the job lives in one of this job table's queues (it then has a page). */
  known: z.boolean(),
});
export type FlowNode = z.infer<typeof flowNodeSchema>;

export const jobFlowSchema = z.object({
  parent: flowNodeSchema.optional(),
  children: z.array(flowNodeSchema.extend({ dependency: z.enum(['pending', 'processed', 'failed', 'ignored']) })),
  counts: z.object({ pending: z.number().int(), processed: z.number().int(), failed: z.number().int(), ignored: z.number().int() }),
});
export type JobFlow = z.infer<typeof jobFlowSchema>;

/**
 * A job's place in a BullMQ flow: its parent, and its children by how they stand
 * (BullMQ's dependency sets: pending, processed, failed, ignored), at most
 * FLOW_CHILDREN_SHOWN of each with the state of each child now. Undefined for a job
 * in no flow, which costs one count call.
 */
export async function readJobFlow(bullpen: Bullpen, job: Job): Promise<JobFlow | undefined> {
  const c = await job.getDependenciesCount({ processed: true, unprocessed: true, failed: true, ignored: true });
  const counts = { pending: c.unprocessed ?? 0, processed: c.processed ?? 0, failed: c.failed ?? 0, ignored: c.ignored ?? 0 };
  const hasChildren = Object.values(counts).some((n) => n > 0);
  if (!job.parentKey && !hasChildren) return undefined;
  const page = { count: FLOW_CHILDREN_SHOWN };
  const deps = hasChildren ? await job.getDependencies({ processed: page, unprocessed: page, failed: page, ignored: page }) : {};
  const keyed: Array<{ key: string; dependency: JobFlow['children'][number]['dependency'] }> = [
    ...(deps.unprocessed ?? []).map((key) => ({ key, dependency: 'pending' as const })),
    ...Object.keys(deps.processed ?? {}).map((key) => ({ key, dependency: 'processed' as const })),
    ...(deps.failed ?? []).map((key) => ({ key, dependency: 'failed' as const })),
    ...Object.keys(deps.ignored ?? {}).map((key) => ({ key, dependency: 'ignored' as const })),
  ];
  const [parent, ...children] = await Promise.all([
    job.parentKey ? nodeOf(bullpen, job.parentKey) : Promise.resolve(undefined),
    ...keyed.map(async ({ key, dependency }) => ({ ...(await nodeOf(bullpen, key)), dependency })),
  ]);
  return { ...(parent ? { parent } : {}), children: children as JobFlow['children'], counts };
}

/**
 * A job key (`<prefix>:{<queue>}:<queue>:<id>` for this job table's queues) as a node
 * with its state. A key from another prefix (a foreign queue) is shown by its key.
 */
async function nodeOf(bullpen: Bullpen, key: string): Promise<FlowNode> {
  const parsed = parseJobKey(bullpen.keys.root, key);
  if (!parsed || !bullpen.jobs.has(parsed.queue)) {
    const lastColon = key.lastIndexOf(':');
    return { queue: key.slice(0, lastColon), id: key.slice(lastColon + 1), state: 'unknown', known: false };
  }
  const state = await bullpen.queues.get(parsed.queue).getJobState(parsed.id);
  return { ...parsed, state: state === 'unknown' ? 'gone' : state, known: true };
}

/** `bullpen:{quota-check}:quota-check:17` → { queue: 'quota-check', id: '17' }; undefined for any other shape. */
export function parseJobKey(root: string, key: string): { queue: string; id: string } | undefined {
  if (!key.startsWith(`${root}:{`)) return undefined;
  const rest = key.slice(root.length + 2);
  const close = rest.indexOf('}');
  if (close < 1) return undefined;
  const queue = rest.slice(0, close);
  const tail = rest.slice(close + 1);
  if (!tail.startsWith(`:${queue}:`)) return undefined;
  const id = tail.slice(queue.length + 2);
  return id ? { queue, id } : undefined;
}
