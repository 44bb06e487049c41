import type { Logger } from '../logging/logger';
import type { RuntimeHooks } from '../runtime/runtime-hooks';
import { parseRunJobId, type LastRunOutcome, type ScheduleRunLog } from './run-log';

/**
 * Runtime hooks that keep each schedule's last run up to date, passing every event on
 * to `next` (the worker's other hooks, e.g. metrics). Give the result to
 * `WorkerPool({hooks})`. Writes are fire-and-forget: a lost write only leaves the
 * dashboard one state behind, which the read side settles from BullMQ.
 */
export function scheduleRunHooks(opts: {
  log: ScheduleRunLog;
  /** The schedules to record; other jobs (including other code's schedulers) are ignored. */
  names: ReadonlySet<string>;
  logger: Logger;
  next?: RuntimeHooks;
}): RuntimeHooks {
  const { log, names, logger, next } = opts;
  const write = (jobId: string, outcome: LastRunOutcome, reason?: string) => {
    const run = parseRunJobId(jobId);
    if (!run || !names.has(run.name)) return;
    log
      .record(run.name, { jobId, at: run.at, outcome, reason, trigger: run.trigger })
      .catch((err) => logger.warn({ err, jobId, schedule: run.name }, 'could not record a schedule’s last run'));
  };
  return {
    onStart(ctx) {
      next?.onStart?.(ctx);
      write(ctx.jobId, 'active');
    },
    onProgress(ctx) {
      next?.onProgress?.(ctx);
    },
    onComplete(ctx) {
      next?.onComplete?.(ctx);
      write(ctx.jobId, 'completed');
    },
    onFailed(ctx) {
      next?.onFailed?.(ctx);
      // A failed attempt with a retry ahead is waiting again, not failed.
      write(ctx.jobId, ctx.final ? 'failed' : 'waiting', ctx.error.message);
    },
  };
}
