import type { Queue } from 'bullmq';
import type { Bullpen } from '../bullpen';
import { AppError } from '../errors/app-error';
import type { BulkCounts, ReportProgress } from './bulk-operations';
import { cleanableStateSchema, type CleanableState } from './clean-states';
import { markDeadLetterRetried } from './job-operations';
import { requireQueueName } from './queue-page';
import { findJob } from './find-job';

/** Ids a "retry selected" may carry: one page's worth. */
export const MAX_SELECTED_JOBS = 100;
/** BullMQ's clean removes at most this many per call; bigger cleans loop. */
export const CLEAN_BATCH = 10_000;

export { CLEANABLE_STATES, cleanableStateSchema, type CleanableState } from './clean-states';

export interface RetryAllOptions {
  /** Failed ids read and retried per round. @defaultValue 500 */
  batchSize?: number;
  /** Retries in flight at once. @defaultValue 50 */
  concurrency?: number;
  /** Only jobs that failed at or before this time (newer failures are not retried again). @defaultValue now */
  before?: number;
}

/**
 * Queue-wide mutations. Bulk ones walk the state in bounded batches and report
 * cumulative progress, so memory stays flat whether the queue holds ten or a
 * million jobs.
 */
export class QueueOperations {
  constructor(private readonly bullpen: Bullpen) {}

  private queue(name: string): Queue {
    return this.bullpen.queues.get(requireQueueName(this.bullpen, name));
  }

  async pause(name: string): Promise<void> {
    await this.queue(name).pause();
  }

  async resume(name: string): Promise<void> {
    await this.queue(name).resume();
  }

  /** Retries some failed jobs by id; ids no longer failed are skipped, not errors. */
  async retrySelected(name: string, ids: string[], by: string): Promise<BulkCounts> {
    if (ids.length > MAX_SELECTED_JOBS)
      throw new AppError('VALIDATION', `Select at most ${MAX_SELECTED_JOBS} jobs at once; use "Retry all" for more`);
    const queue = this.queue(name);
    return this.retryIds(queue, name, [...new Set(ids)], by, 25);
  }

  /**
   * Retries every job that is failed now, oldest first, `batchSize` ids per round
   * (ZRANGEBYSCORE … LIMIT): never more than one batch in memory. Jobs failing again
   * while this runs are newer than `before` and are left alone, so the loop ends.
   */
  async retryAllFailed(
    name: string,
    by: string,
    report: ReportProgress = async () => undefined,
    opts: RetryAllOptions = {},
  ): Promise<BulkCounts> {
    const queue = this.queue(name);
    const failedKey = queue.toKey('failed');
    const before = opts.before ?? Date.now();
    const batch = Math.max(1, opts.batchSize ?? 500);
    const total = Number(await this.bullpen.redis.zcount(failedKey, '-inf', before));
    const counts: BulkCounts = { succeeded: 0, skipped: 0, failed: 0 };
    await report({ ...counts, total });
    // Ids that could not be retried stay in the set; skip past them.
    let offset = 0;
    for (;;) {
      const ids = await this.bullpen.redis.zrangebyscore(failedKey, '-inf', before, 'LIMIT', offset, batch);
      if (ids.length === 0) break;
      const c = await this.retryIds(queue, name, ids, by, opts.concurrency ?? 50);
      counts.succeeded += c.succeeded;
      counts.skipped += c.skipped;
      counts.failed += c.failed;
      // Whatever of this batch is still in the set (could not be retried, hash gone) is skipped next round.
      const scores = (await this.bullpen.redis.call('ZMSCORE', failedKey, ...ids)) as Array<string | null>;
      offset += scores.filter((x) => x !== null && Number(x) <= before).length;
      await report({ ...counts, total });
    }
    return counts;
  }

  /** Promotes every delayed job (BullMQ's batched promoteJobs), reporting as the delayed set shrinks. */
  async promoteAll(name: string, report: ReportProgress = async () => undefined): Promise<BulkCounts> {
    const queue = this.queue(name);
    const total = await queue.getDelayedCount();
    await report({ succeeded: 0, skipped: 0, failed: 0, total });
    const poll = setInterval(() => {
      void queue
        .getDelayedCount()
        .then((left) => report({ succeeded: Math.max(0, total - left), skipped: 0, failed: 0, total }))
        .catch(() => undefined);
    }, 1_000);
    try {
      await queue.promoteJobs({ count: 1_000 });
    } finally {
      clearInterval(poll);
    }
    const left = await queue.getDelayedCount();
    return { succeeded: Math.max(0, total - left), skipped: 0, failed: 0 };
  }

  /**
   * Removes jobs of `state` older than `olderThanMs`, at most CLEAN_BATCH per call
   * (BullMQ's limit), until a call removes fewer. Returns how many were removed.
   */
  async clean(
    name: string,
    state: CleanableState,
    olderThanMs: number,
    report: ReportProgress = async () => undefined,
  ): Promise<BulkCounts> {
    const queue = this.queue(name);
    const s = cleanableStateSchema.parse(state);
    if (!Number.isInteger(olderThanMs) || olderThanMs < 0)
      throw new AppError('VALIDATION', 'The age must be a whole number of milliseconds ≥ 0');
    let removed = 0;
    for (;;) {
      const ids = await queue.clean(olderThanMs, CLEAN_BATCH, s === 'waiting' ? 'wait' : s);
      removed += ids.length;
      await report({ succeeded: removed, skipped: 0, failed: 0 });
      if (ids.length < CLEAN_BATCH) break;
    }
    return { succeeded: removed, skipped: 0, failed: 0 };
  }

  private async retryIds(queue: Queue, name: string, ids: string[], by: string, concurrency: number): Promise<BulkCounts> {
    const counts: BulkCounts = { succeeded: 0, skipped: 0, failed: 0 };
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const job = await findJob(queue, id);
        if (!job) {
          counts.skipped++;
          continue;
        }
        try {
          await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        } catch (err) {
          // Not failed any more (retried by someone else, removed): nothing to do.
          if (/not in the failed state|-3|-1/i.test((err as Error).message) || !(await job.isFailed())) counts.skipped++;
          else counts.failed++;
          continue;
        }
        counts.succeeded++;
        await markDeadLetterRetried(this.bullpen, name, id, by);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    return counts;
  }
}
