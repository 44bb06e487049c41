import type { Queue } from 'bullmq';
import type { Bullpen } from '../bullpen';
import { AppError } from '../errors/app-error';
import type { BulkCounts, ReportProgress } from './bulk-operations';
import { cleanableStateSchema, type CleanableState } from './clean-states';
import { resolveQueue } from './queue-ref';
import { findJob } from './find-job';

/** Ids a "retry selected" may carry: one page's worth. */
export const MAX_SELECTED_JOBS = 100;
/** Failed jobs a retry preview looks at: enough for any real incident, bounded for a huge backlog. */
export const RETRY_PREVIEW_LIMIT = 10_000;
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

  /**
   * Refuses a retry of many jobs of a type that destroys data: each is retried on its
   * own page by an admin who types its org id (lib/dashboard/job-start-rules.ts).
   * Called before a bulk retry starts, so the refusal is the action's answer.
   */
  async checkBulkRetry(name: string): Promise<void> {
    this.refuseDestructive((await resolveQueue(this.bullpen, name)).type);
  }

  private refuseDestructive(type: string | undefined): void {
    if (type && this.bullpen.jobs.get(type).destructive) {
      throw new AppError(
        'FORBIDDEN',
        `${type} destroys data: retry its jobs one at a time on their own page, as an admin typing the org id`,
        {
          type,
          destructive: true,
        },
      );
    }
  }

  private async queue(name: string): Promise<Queue> {
    return (await resolveQueue(this.bullpen, name)).queue;
  }

  async pause(name: string): Promise<void> {
    await (await this.queue(name)).pause();
  }

  async resume(name: string): Promise<void> {
    await (await this.queue(name)).resume();
  }

  /** Retries some failed jobs by id; ids no longer failed are skipped, not errors. */
  async retrySelected(name: string, ids: string[], by: string): Promise<RetryCounts & { message?: string }> {
    if (ids.length > MAX_SELECTED_JOBS)
      throw new AppError('VALIDATION', `Select at most ${MAX_SELECTED_JOBS} jobs at once; use "Retry all" for more`);
    const resolved = await resolveQueue(this.bullpen, name);
    this.refuseDestructive(resolved.type);
    const counts = await this.retryIds(resolved.queue, resolved.type, [...new Set(ids)], by, 25);
    return { ...counts, message: describeRetrySkips(counts) };
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
  ): Promise<RetryCounts & { message?: string }> {
    const resolved = await resolveQueue(this.bullpen, name);
    this.refuseDestructive(resolved.type);
    const queue = resolved.queue;
    const failedKey = queue.toKey('failed');
    const before = opts.before ?? Date.now();
    const batch = Math.max(1, opts.batchSize ?? 500);
    const total = Number(await this.bullpen.redis.zcount(failedKey, '-inf', before));
    const counts: RetryCounts = { succeeded: 0, skipped: 0, failed: 0, skippedBecause: {} };
    await report({ ...counts, total });
    // Ids that could not be retried stay in the set; skip past them.
    let offset = 0;
    for (;;) {
      const ids = await this.bullpen.redis.zrangebyscore(failedKey, '-inf', before, 'LIMIT', offset, batch);
      if (ids.length === 0) break;
      const c = await this.retryIds(queue, resolved.type, ids, by, opts.concurrency ?? 50);
      counts.succeeded += c.succeeded;
      counts.skipped += c.skipped;
      counts.failed += c.failed;
      for (const [why, n] of Object.entries(c.skippedBecause) as Array<[RetrySkip, number]>) {
        counts.skippedBecause[why] = (counts.skippedBecause[why] ?? 0) + n;
      }
      // Whatever of this batch is still in the set (could not be retried, hash gone) is skipped next round.
      const scores = (await this.bullpen.redis.call('ZMSCORE', failedKey, ...ids)) as Array<string | null>;
      offset += scores.filter((x) => x !== null && Number(x) <= before).length;
      await report({ ...counts, total });
    }
    return { ...counts, message: describeRetrySkips(counts) };
  }

  /**
   * What "Retry all failed" would do, before it runs: of the failed jobs (the first
   * `limit`, oldest first), how many it would skip because their dead letters were
   * already replayed (or are being) or discarded. Read-only.
   */
  async retryPreview(name: string, limit = RETRY_PREVIEW_LIMIT): Promise<RetryPreview> {
    const resolved = await resolveQueue(this.bullpen, name);
    const failedKey = resolved.queue.toKey('failed');
    const failed = Number(await this.bullpen.redis.zcard(failedKey));
    const preview: RetryPreview = { failed, scanned: 0, willSkip: { replayed: 0, discarded: 0 } };
    // A foreign queue has no dead letters here: nothing is skipped.
    const type = resolved.type;
    if (!type) return preview;
    for (let start = 0; start < Math.min(failed, limit); start += 1_000) {
      const ids = await this.bullpen.redis.zrange(failedKey, start, Math.min(start + 1_000, limit) - 1);
      if (ids.length === 0) break;
      preview.scanned += ids.length;
      for (const status of (await this.bullpen.dlq.recordStatuses(type, ids)).values()) {
        if (status === 'discarded') preview.willSkip.discarded++;
        else if (status !== 'pending') preview.willSkip.replayed++;
      }
    }
    return preview;
  }

  /** Promotes every delayed job (BullMQ's batched promoteJobs), reporting as the delayed set shrinks. */
  async promoteAll(name: string, report: ReportProgress = async () => undefined): Promise<BulkCounts> {
    const queue = await this.queue(name);
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
    const queue = await this.queue(name);
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

  /**
   * Retries failed jobs, each after claiming its dead letter as a DLQ replay would: a job
   * whose dead letter was already replayed or discarded is skipped, not run again with
   * its old data (docs/decisions/0008-one-record-per-failure.md), and the skips are
   * counted by reason. A foreign queue (`type` undefined) has no dead letters here: its
   * jobs are retried as they are.
   */
  private async retryIds(queue: Queue, type: string | undefined, ids: string[], by: string, concurrency: number): Promise<RetryCounts> {
    const counts: RetryCounts = { succeeded: 0, skipped: 0, failed: 0, skippedBecause: {} };
    const skip = (why: RetrySkip) => {
      counts.skipped++;
      counts.skippedBecause[why] = (counts.skippedBecause[why] ?? 0) + 1;
    };
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const job = await findJob(queue, id);
        if (!job) {
          skip('gone');
          continue;
        }
        const claim = type ? await this.bullpen.dlq.claimQueueRetry(type, id, by, job.data) : undefined;
        if (claim?.outcome === 'refused') {
          skip(claim.status === 'discarded' ? 'discarded' : 'replayed');
          continue;
        }
        try {
          await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        } catch (err) {
          if (claim) await this.bullpen.dlq.unclaimQueueRetry(claim, id);
          // Not failed any more (retried by someone else, removed): nothing to do.
          if (/not in the failed state|-3|-1/i.test((err as Error).message) || !(await job.isFailed())) skip('gone');
          else counts.failed++;
          continue;
        }
        counts.succeeded++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    return counts;
  }
}

/** Why a failed job was not retried: its dead letter was replayed (or is being) or discarded, or the job left the failed set. */
export type RetrySkip = 'replayed' | 'discarded' | 'gone';

export interface RetryCounts extends BulkCounts {
  skippedBecause: Partial<Record<RetrySkip, number>>;
}

/** The skips of a retry in words, for the operation's outcome: "2 skipped: 1 already replayed from the dead letters, 1 discarded". */
export function describeRetrySkips(c: RetryCounts): string | undefined {
  if (c.skipped === 0) return undefined;
  const words: Record<RetrySkip, string> = {
    replayed: 'already replayed from the dead letters',
    discarded: 'dead letter discarded',
    gone: 'no longer failed',
  };
  const parts = (Object.keys(words) as RetrySkip[]).filter((k) => c.skippedBecause[k]).map((k) => `${c.skippedBecause[k]} ${words[k]}`);
  return `${c.skipped} skipped: ${parts.join(', ')}`;
}

/** What "Retry all failed" would skip, counted before it runs (of the first `scanned` failed jobs). */
export interface RetryPreview {
  failed: number;
  scanned: number;
  willSkip: { replayed: number; discarded: number };
}
