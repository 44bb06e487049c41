import { Bullpen, type BullpenOptions } from '@/lib/bullpen';
import { JobUsageRecorder } from '@/lib/domain/quotas/job-usage-recorder';
import { UsageStore } from '@/lib/domain/quotas/usage-store';
import { DeadLetterReconciler } from '@/lib/dlq/reconciler';
import type { DeadLetterSink } from '@/lib/dlq/sink';
import type { JobTypeName } from '@/lib/jobs/registry';
import { MetricsServer } from '@/lib/metrics/metrics-server';
import { createQueueDepthSource } from '@/lib/metrics/queue-depth';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import type { HandlerMap } from '@/lib/runtime/handler';
import type { RuntimeHooks } from '@/lib/runtime/runtime-hooks';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { createHandlers } from './handlers';

export interface WorkerProcessOptions extends BullpenOptions {
  /** Handlers to run; default: every shipped handler. Tests pass their own. */
  handlers?: HandlerMap;
  /** Where final failures go; default: the DLQ store. */
  sink?: DeadLetterSink;
  concurrency?: number;
  /** Serve /metrics and /healthz on METRICS_PORT. @defaultValue true */
  metricsServer?: boolean;
  /** Apply the cron schedules and sweep the failed sets into the DLQ. @defaultValue true */
  maintenance?: boolean;
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
  // Everything in this process rides out a Redis restart (docs/decisions/0006-connection-roles.md).
  const bullpen = new Bullpen({ connectionRole: 'resilient', ...opts });
  const { config, logger } = bullpen;
  const metrics = new WorkerMetrics(config.METRICS_PREFIX, createQueueDepthSource({ queues: bullpen.queues, logger }), () =>
    bullpen.dlq.pendingCount(),
  );
  bullpen.alerter.countInto(metrics);
  const handlers = opts.handlers ?? createHandlers({ bullpen });
  const types = (config.WORKER_TYPES as JobTypeName[] | undefined)?.filter((t) => t in handlers);
  const connection = bullpen.workerConnection();
  const sink = opts.sink ?? bullpen.dlq;
  // The jobsPerDay quota: counted in memory per tenant and day, written every few seconds.
  const usage = new JobUsageRecorder({ usage: new UsageStore(bullpen.redis, bullpen.keys), logger });
  const pool = new WorkerPool({
    connection,
    keys: bullpen.keys,
    handlers,
    sink,
    alerter: bullpen.alerter,
    logger,
    metrics,
    // Scheduled runs record their outcome as the schedule's "last run".
    hooks: bullpen.schedules.runHooks(usage.hooks(opts.hooks)),
    types,
    concurrency: opts.concurrency,
    stalledIntervalMs: config.STALLED_INTERVAL_MS,
    lockDurationMs: config.LOCK_DURATION_MS,
  });
  await pool.start();
  usage.start();
  let stopReconciler: (() => Promise<void>) | undefined;
  if (opts.maintenance !== false) {
    const boot = await bullpen.schedules.bootstrap();
    logger.info({ applied: boot.applied, schedules: boot.schedules.map((s) => `${s.name}:${s.action}`) }, 'schedules applied');
    // At start (a crash may have left final failures without a dead letter), then periodically.
    const reconciler = new DeadLetterReconciler({ sink, queues: bullpen.queues, redis: bullpen.redis, keys: bullpen.keys, logger });
    stopReconciler = reconciler.startReconciler(config.RECONCILE_INTERVAL_MS);
  }
  const server = opts.metricsServer === false ? undefined : new MetricsServer({ metrics, health: bullpen.health, config, logger });
  await server?.start();

  let stopped: Promise<{ timedOut: boolean }> | undefined;
  const stop = (graceMs = config.SHUTDOWN_GRACE_MS) => {
    stopped ??= (async () => {
      await server?.close();
      await stopReconciler?.();
      const result = await pool.close(graceMs);
      // After the last job's hooks, before the connection it writes on closes.
      await usage.stop();
      connection.disconnect();
      await bullpen.close();
      logger.info({ timedOut: result.timedOut }, 'worker stopped');
      return result;
    })();
    return stopped;
  };
  return { bullpen, pool, metrics, stop };
}
