import { Bullpen, type BullpenOptions } from '@/lib/bullpen';
import type { DeadLetterSink } from '@/lib/dlq/sink';
import type { JobTypeName } from '@/lib/jobs/registry';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import type { HandlerMap } from '@/lib/runtime/handler';
import type { RuntimeHooks } from '@/lib/runtime/processor';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { createHandlers } from './handlers';

export interface WorkerProcessOptions extends BullpenOptions {
  /** Handlers to run; default: every shipped handler. Tests pass their own. */
  handlers?: HandlerMap;
  /** Where final failures go; default: the DLQ store. */
  sink?: DeadLetterSink;
  concurrency?: number;
  hooks?: RuntimeHooks;
}

export interface RunningWorker {
  bullpen: Bullpen;
  pool: WorkerPool;
  metrics: WorkerMetrics;
  /** Graceful stop: no new jobs, running ones finish within the grace period. */
  stop(graceMs?: number): Promise<{ timedOut: boolean }>;
}

/** Builds and starts everything a worker process runs. */
export async function startWorkerProcess(opts: WorkerProcessOptions = {}): Promise<RunningWorker> {
  const bullpen = new Bullpen(opts);
  const { config, logger } = bullpen;
  const metrics = new WorkerMetrics(config.METRICS_PREFIX);
  const handlers = opts.handlers ?? createHandlers({ bullpen });
  const types = (config.WORKER_TYPES as JobTypeName[] | undefined)?.filter((t) => t in handlers);
  const connection = bullpen.workerConnection();
  const sink = opts.sink ?? requireSink(bullpen);
  const pool = new WorkerPool({
    connection,
    keys: bullpen.keys,
    handlers,
    sink,
    alerter: bullpen.alerter,
    logger,
    metrics,
    hooks: opts.hooks,
    types,
    concurrency: opts.concurrency,
    stalledIntervalMs: config.STALLED_INTERVAL_MS,
    lockDurationMs: config.LOCK_DURATION_MS,
  });
  await pool.start();

  let stopped: Promise<{ timedOut: boolean }> | undefined;
  const stop = (graceMs = config.SHUTDOWN_GRACE_MS) => {
    stopped ??= (async () => {
      const result = await pool.close(graceMs);
      connection.disconnect();
      await bullpen.close();
      logger.info({ timedOut: result.timedOut }, 'worker stopped');
      return result;
    })();
    return stopped;
  };
  return { bullpen, pool, metrics, stop };
}

function requireSink(bullpen: Bullpen): DeadLetterSink {
  const dlq = (bullpen as unknown as { dlq?: DeadLetterSink }).dlq;
  if (!dlq) throw new Error('No dead-letter store configured');
  return dlq;
}
