import 'server-only';
import type { Queue } from 'bullmq';
import type { Bullpen } from '@/lib/bullpen';
import type { RedisClient } from '@/lib/redis/connection';
import { AppError } from '@/lib/errors/app-error';
import type { BulkCounts, ReportProgress } from '@/dashboard/live/bulk-runner';
import { cleanableStateSchema, type CleanableState } from '@/dashboard/client/clean-states';
import { resolveQueue } from './queue-ref';
import { findJob } from '@/dashboard/jobs/find-job';
import { type RetryRefusal, retryVerdict } from '@/lib/dlq/retry-verdict';

/** Ids a "retry selected" may carry: one page's worth. */
export const MAX_SELECTED_JOBS = 100;
/** Failed jobs a retry preview looks at: enough for any real incident, bounded for a huge backlog. */
export const RETRY_PREVIEW_LIMIT = 10_000;
/** BullMQ's clean removes at most this many per call; bigger cleans loop. */
export const CLEAN_BATCH = 10_000;

export { CLEANABLE_STATES, cleanableStateSchema, type CleanableState } from '@/dashboard/client/clean-states';

export interface RetryAllOptions {
  /** Failed ids read and retried per round. @defaultValue 500 */
  batchSize?: number;
  /** Retries in flight at once. @defaultValue 50 */
  concurrency?: number;
  /** Only jobs that failed at or before this time (newer failures are not retried again). @defaultValue now */
  before?: number;
  /**
   * At most this many failed jobs, oldest first: with `before`, exactly the jobs a
   * preview counted (`RetryPreview.asOf`, `scanned`). @defaultValue every one
   */
  limit?: number;
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
   * own page by an admin who types its org id (dashboard/jobs/job-start-rules.ts).
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
   * Retries every job that failed at or before `before`, oldest first, `batchSize` ids per
   * round (ZRANGEBYSCORE … LIMIT): never more than one batch in memory. Jobs failing again
   * while this runs are newer than `before` and are left alone, so the loop ends. With
   * the `before` and `limit` of a preview it acts on exactly the jobs the preview counted,
   * each decided as the preview decided it (lib/dlq/retry-verdict.ts).
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
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    const batch = Math.max(1, opts.batchSize ?? 500);
    const total = Math.min(limit, Number(await this.bullpen.redis.zcount(failedKey, '-inf', before)));
    const counts: RetryCounts = { succeeded: 0, skipped: 0, failed: 0, skippedBecause: {} };
    await report({ ...counts, total });
    // Ids that could not be retried stay in the set; skip past them.
    let offset = 0;
    let seen = 0;
    while (seen < limit) {
      const ids = await this.bullpen.redis.zrangebyscore(failedKey, '-inf', before, 'LIMIT', offset, Math.min(batch, limit - seen));
      if (ids.length === 0) break;
      seen += ids.length;
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
   * What "Retry all failed" will do, before it runs: of the jobs failed now (the oldest
   * `limit`), how many it will retry and how many it will skip, and why, each decided
   * as the retry's claim decides it (lib/dlq/retry-verdict.ts). Read-only; pass its
   * `asOf` and `scanned` to `retryAllFailed` to act on exactly these jobs.
   */
  async retryPreview(name: string, limit = RETRY_PREVIEW_LIMIT, now = Date.now()): Promise<RetryPreview> {
    const resolved = await resolveQueue(this.bullpen, name);
    const failedKey = resolved.queue.toKey('failed');
    const failed = Number(await this.bullpen.redis.zcount(failedKey, '-inf', now));
    const scanned = Math.min(failed, limit);
    const preview: RetryPreview = { asOf: now, failed, scanned, willRetry: 0, willSkip: { replayed: 0, discarded: 0 } };
    const type = resolved.type;
    // A foreign queue has no dead letters here: every job is retried as it is.
    if (!type) return { ...preview, willRetry: scanned };
    for (let offset = 0; offset < scanned; offset += PREVIEW_PAGE) {
      const ids = await this.bullpen.redis.zrangebyscore(failedKey, '-inf', now, 'LIMIT', offset, Math.min(PREVIEW_PAGE, scanned - offset));
      if (ids.length === 0) break;
      const jobs = await loadJobData(this.bullpen.redis, resolved.queue, ids);
      const states = await this.bullpen.dlq.chainStates(type, jobs);
      for (const job of jobs) {
        const verdict = retryVerdict(states.get(job.id), job.id);
        if (verdict.retry) preview.willRetry++;
        else preview.willSkip[skipOf(verdict.why)]++;
      }
      // A job gone between the two reads is neither: the retry will say "no longer failed".
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

/** What "Retry all failed" will do, counted before it runs, over the oldest `scanned` jobs failed at `asOf`. */
export interface RetryPreview {
  /** When it was counted (epoch ms): the retry acts on jobs failed at or before it. */
  asOf: number;
  /** Jobs failed at `asOf`. */
  failed: number;
  /** Of them, the oldest this many were counted (all unless past RETRY_PREVIEW_LIMIT). */
  scanned: number;
  willRetry: number;
  willSkip: { replayed: number; discarded: number };
}

/** Ids whose records a preview reads per round trip. */
const PREVIEW_PAGE = 1_000;

/** A refusal as the retry's counts name it: a failure replayed (or being, or replayed as a later job) or discarded. */
export function skipOf(why: RetryRefusal): 'replayed' | 'discarded' {
  return why === 'discarded' ? 'discarded' : 'replayed';
}

/** The id and data of each job (one HGET each, in one pipeline); a job removed meanwhile is left out. */
async function loadJobData(redis: RedisClient, queue: Queue, ids: string[]): Promise<Array<{ id: string; data: unknown }>> {
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(queue.toKey(id), 'data');
  const replies = (await pipeline.exec()) ?? [];
  const out: Array<{ id: string; data: unknown }> = [];
  replies.forEach(([err, raw], i) => {
    if (err || typeof raw !== 'string') return;
    out.push({ id: ids[i], data: parseData(raw) });
  });
  return out;
}

function parseData(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
