import 'server-only';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { requireQueueName } from './queue-page';
import {
  concurrencyInputSchema,
  describeWindow,
  type LimitChange,
  rateLimitInputSchema,
  type RateLimit,
} from '@/dashboard/client/throughput-limits';

/**
 * A queue's global concurrency and rate limit, read and changed with BullMQ's own
 * calls (`setGlobalConcurrency`, `setGlobalRateLimit`, their removals and getters).
 * BullMQ keeps them in the queue's meta hash and checks them in the script that
 * moves a job to active, so every worker process obeys a change at its next fetch,
 * and a restarted worker reads them again: nothing is held in a process.
 */
export class QueueThroughput {
  constructor(private readonly bullpen: Bullpen) {}

  async setConcurrency(name: string, concurrency: unknown): Promise<LimitChange<number>> {
    const queue = this.queue(name);
    const input = parseOrRefuse(concurrencyInputSchema, { concurrency });
    const before = await queue.getGlobalConcurrency();
    await queue.setGlobalConcurrency(input.concurrency);
    await this.wakeWorkers(queue);
    return { before, after: input.concurrency };
  }

  async removeConcurrency(name: string): Promise<LimitChange<number>> {
    const queue = this.queue(name);
    const before = await queue.getGlobalConcurrency();
    await queue.removeGlobalConcurrency();
    await this.wakeWorkers(queue);
    return { before, after: null };
  }

  /**
   * Sets the rate limit. On a type whose job table declares its own limit, BullMQ keeps
   * counting in the table's window whatever is stored here (see effectiveRateLimit), so
   * another window is refused rather than shown as set and silently ignored.
   */
  async setRateLimit(name: string, max: unknown, durationMs: unknown): Promise<LimitChange<RateLimit>> {
    const queue = this.queue(name);
    const input = parseOrRefuse(rateLimitInputSchema, { max, durationMs });
    const own = this.bullpen.jobs.get(name).rateLimit;
    if (own && own.durationMs !== input.durationMs) {
      const message = `${name}'s workers count job starts in the window its job table declares (${describeWindow(own.durationMs)}); set the maximum per ${own.durationMs} ms`;
      throw new AppError('VALIDATION', message, { fieldErrors: { durationMs: [message] } });
    }
    const before = await queue.getGlobalRateLimit();
    await queue.setGlobalRateLimit(input.max, input.durationMs);
    await this.wakeWorkers(queue);
    return { before: before && { max: before.max, durationMs: before.duration }, after: input };
  }

  async removeRateLimit(name: string): Promise<LimitChange<RateLimit>> {
    const queue = this.queue(name);
    const before = await queue.getGlobalRateLimit();
    await queue.removeGlobalRateLimit();
    await this.wakeWorkers(queue);
    return { before: before && { max: before.max, durationMs: before.duration }, after: null };
  }

  /**
   * Workers that found the queue at its cap (or rate limited) wait on its marker for up to
   * their block timeout; a marker makes them look again now, as BullMQ's own scripts do when
   * a job becomes available. At worst one extra fetch that finds nothing to run.
   */
  private async wakeWorkers(queue: Queue): Promise<void> {
    await this.bullpen.redis.zadd(queue.toKey('marker'), 0, '0');
  }

  private queue(name: string): Queue {
    return this.bullpen.queues.get(requireQueueName(this.bullpen, name));
  }
}

/** Parses what lib/ is handed (the action parsed it already; other callers may not have): VALIDATION with field errors. */
function parseOrRefuse<S extends z.ZodType>(schema: S, v: unknown): z.output<S> {
  const parsed = schema.safeParse(v);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new AppError('VALIDATION', message, { fieldErrors: z.flattenError(parsed.error).fieldErrors });
}
