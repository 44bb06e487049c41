import { CachedSingleFlight } from '../health/cached-single-flight';
import { withTimeLimit } from '../health/time-limit';
import { silentLogger, type Logger } from '../logging/logger';
import { AppError } from '../errors/app-error';
import type { QueueSource } from '../health/check-outcome';
import { DEPTH_STATES, type DepthSource } from './worker-metrics';

export interface QueueDepthOptions {
  /** `bullpen.queues`. */
  queues: QueueSource;
  /**
   * Queues to report; every job type by default, so a queue filling up with a type no
   * worker runs is visible too.
   * @defaultValue every type of the job table
   */
  types?: readonly string[];
  /**
   * How long counts are reused: concurrent scrapes (several Prometheus replicas, a
   * dashboard) read Redis once.
   * @defaultValue 1000
   */
  ttlMs?: number;
  /**
   * Time limit of one read of all counts; a hung Redis leaves queue_depth out of the
   * scrape instead of hanging it, so the job counters still arrive.
   * @defaultValue 2000
   */
  timeoutMs?: number;
  now?: () => number;
  logger?: Logger;
}

/**
 * A DepthSource for WorkerMetrics: `getJobCounts` (O(1) per state) of every queue,
 * read in parallel at scrape time. A queue whose read fails is left out of that scrape
 * (an absent series is the honest signal) rather than failing the whole /metrics; when
 * none could be read, the source rejects and the scrape leaves the gauge out.
 */
export function createQueueDepthSource(opts: QueueDepthOptions): DepthSource {
  const types = [...new Set(opts.types ?? opts.queues.jobs.names)];
  const unknown = types.filter((t) => !opts.queues.jobs.has(t));
  if (unknown.length > 0) throw new AppError('UNKNOWN_JOB_TYPE', `Queue depth: unknown job type(s) ${unknown.join(', ')}`);
  const ttlMs = opts.ttlMs ?? 1_000;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new AppError('VALIDATION', `Queue depth: ttlMs must be an integer ≥ 0 (got ${ttlMs})`);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new AppError('VALIDATION', `Queue depth: timeoutMs must be a positive integer (got ${timeoutMs})`);
  const logger = opts.logger ?? silentLogger;

  const load = async () => {
    const settled = await Promise.allSettled(
      types.map((type) => withTimeLimit(opts.queues.get(type).getJobCounts(...DEPTH_STATES), timeoutMs, `queue depth of ${type}`)),
    );
    const rows: Array<{ type: string; counts: Record<string, number> }> = [];
    const failed: string[] = [];
    for (const [i, r] of settled.entries()) {
      if (r.status === 'fulfilled') rows.push({ type: types[i], counts: r.value });
      else failed.push(types[i]);
    }
    if (failed.length > 0) {
      const first = settled.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      // None read: Redis is away, which the scrape counts (scrape_errors_total) and redis_up shows.
      if (rows.length === 0) throw first.reason;
      logger.warn({ err: first.reason, queues: failed }, 'queue depth not read for some queues');
    }
    return rows;
  };
  const cache = new CachedSingleFlight(load, ttlMs, opts.now);
  return () => cache.get();
}
