import { hostname } from 'node:os';
import { createBullpen, type Bullpen, type BullpenOptions } from '../bullpen';
import { DeadLetterReconciler } from '../dlq/reconciler';
import type { DeadLetterSink } from '../dlq/sink';
import { buildHandlers, type HandlerDepsOf, type JobTable } from '../jobs/job-definition';
import { MetricsServer } from '../metrics/metrics-server';
import { createQueueDepthSource } from '../metrics/queue-depth';
import { WorkerMetrics } from '../metrics/worker-metrics';
import { HistoryRecorder } from '../metrics/history-recorder';
import { AttemptLog } from './attempt-log';
import type { HandlerMap } from './handler';
import type { RuntimeHooks } from './runtime-hooks';
import { WorkerHeartbeat } from './worker-heartbeat';
import { type PoolCloseResult, WorkerPool } from './worker-pool';
import { startPeriodic } from './periodic';
import { startAlerting } from '../alerts/start-alerting';

/** The pool's name, as BullMQ's CLIENT LIST shows its connections, and its heartbeat record's id. */
function workerName(): string {
  return `bullpen:${hostname()}:${process.pid}`;
}

/**
 * Something an application runs beside its handlers for the life of a worker process
 * (a usage counter, say): it may wrap the runtime's hooks, starts after the workers
 * and stops after the last job, before the connections close.
 */
export interface WorkerExtension {
  hooks?(next?: RuntimeHooks): RuntimeHooks;
  start?(): void;
  stop?(): Promise<void>;
}

export interface WorkerProcessOptions<T extends JobTable = JobTable> extends BullpenOptions<T> {
  /** Builds what the table's handler factories are given (the application's stores), once per process. */
  handlerDeps?: (bullpen: Bullpen) => HandlerDepsOf<T>;
  /** Handlers to run instead of the table's own (tests). */
  handlers?: HandlerMap;
  /** Where final failures go; default: the DLQ store. */
  sink?: DeadLetterSink;
  concurrency?: number;
  /** Serve /metrics and /healthz on METRICS_PORT. @defaultValue true */
  metricsServer?: boolean;
  /** Apply the cron schedules and sweep the failed sets into the DLQ. @defaultValue true */
  maintenance?: boolean;
  hooks?: RuntimeHooks;
  extensions?: (bullpen: Bullpen) => WorkerExtension[];
}

export interface RunningWorker {
  bullpen: Bullpen;
  pool: WorkerPool;
  metrics: WorkerMetrics;
  /** Graceful stop: no new jobs, running ones finish within the grace period; those that did not are returned. */
  stop(graceMs?: number): Promise<PoolCloseResult>;
}

/**
 * Builds and starts everything a worker process runs for a job table: the workers,
 * the schedules, the dead-letter reconciler and /metrics. An application's worker is
 * started with `startAppWorker` (lib/app/start-app-worker.ts), which calls this.
 */
export async function startWorkerProcess<const T extends JobTable>(opts: WorkerProcessOptions<T>): Promise<RunningWorker> {
  // Everything in this process rides out a Redis restart (docs/decisions/0006-connection-roles.md).
  const bullpen = createBullpen({ connectionRole: 'resilient', ...opts });
  const { config, logger } = bullpen;
  const metrics = new WorkerMetrics(
    bullpen.metricsPrefix,
    createQueueDepthSource({ queues: bullpen.queues, logger }),
    () => bullpen.dlq.pendingCount(),
    () => bullpen.health.check(),
    { redis: bullpen.redis },
  );
  bullpen.alerter.countInto(metrics);
  const handlers = opts.handlers ?? buildHandlers(opts.jobs, opts.handlerDeps ? opts.handlerDeps(bullpen) : (undefined as never));
  const types = config.WORKER_TYPES?.filter((t) => t in handlers);
  const connection = bullpen.workerConnection();
  const sink = opts.sink ?? bullpen.dlq;
  const extensions = opts.extensions?.(bullpen) ?? [];
  const appHooks = extensions.reduce<RuntimeHooks | undefined>((next, e) => (e.hooks ? e.hooks(next) : next), opts.hooks);
  // Its record for the workers view: the queues are known once the pool has started.
  const queueInfo: Array<{ type: string; concurrency: number }> = [];
  const name = workerName();
  // Reads the pool's running attempts at each beat (the pool is made below, before the first beat).
  const heartbeat = new WorkerHeartbeat(
    bullpen.redis,
    bullpen.keys,
    { id: name, queues: queueInfo, running: () => pool.runningJobs() },
    logger,
  );
  const history = config.BULLPEN_HISTORY ? new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, logger }) : undefined;
  const attempts = config.BULLPEN_ATTEMPT_RECORD ? new AttemptLog({ redis: bullpen.redis, worker: name, logger }) : undefined;
  const pool = new WorkerPool({
    name,
    attempts,
    telemetry: bullpen.telemetry,
    connection,
    keys: bullpen.keys,
    jobs: bullpen.jobs,
    handlers,
    sink,
    alerter: bullpen.alerter,
    logger,
    metrics,
    history,
    // Scheduled runs record their outcome as the schedule's "last run".
    hooks: bullpen.schedules.runHooks(appHooks),
    types,
    concurrency: opts.concurrency,
    stalledIntervalMs: config.STALLED_INTERVAL_MS,
    lockDurationMs: config.LOCK_DURATION_MS,
    maxPayloadBytes: config.BULLPEN_MAX_PAYLOAD_BYTES,
  });
  await pool.start();
  queueInfo.push(...pool.describe());
  // One subscription for the process: the request reaches every worker, the one running the job stops it.
  // A Redis without the relay's commands (before 6.2) leaves the jobs running, not the worker stopped.
  await bullpen.cancels
    .listen((request) => {
      if (pool.cancel(request)) logger.warn({ jobId: request.jobId, queue: request.queue, by: request.by }, 'job cancelled by an operator');
    })
    .catch((err) => logger.error({ err }, 'cancel requests will not reach this worker: the cancel relay could not subscribe'));
  heartbeat.start();
  history?.start();
  for (const e of extensions) e.start?.();
  let stopReconciler: (() => Promise<void>) | undefined;
  let stopScheduleRepair: (() => Promise<void>) | undefined;
  let stopAlerting: (() => Promise<void>) | undefined;
  if (opts.maintenance !== false) {
    await bullpen.schedules.bootstrap();
    // At start (a crash may have left final failures without a dead letter), then periodically.
    const reconciler = new DeadLetterReconciler({
      sink,
      queues: bullpen.queues,
      redis: bullpen.redis,
      keys: bullpen.keys,
      logger,
      maxPayloadBytes: config.BULLPEN_MAX_PAYLOAD_BYTES,
    });
    stopReconciler = reconciler.startReconciler(config.RECONCILE_INTERVAL_MS);
    if (config.SCHEDULE_REPAIR_INTERVAL_MS > 0) {
      stopScheduleRepair = startPeriodic(config.SCHEDULE_REPAIR_INTERVAL_MS, async () => {
        await bullpen.schedules.repair().catch((err) => logger.warn({ err }, 'could not check the schedules; will try again'));
      });
    }
    stopAlerting = startAlerting(bullpen, { owner: name, metrics });
  }
  const server = opts.metricsServer === false ? undefined : new MetricsServer({ metrics, health: bullpen.health, config, logger });
  await server?.start();

  let stopped: Promise<PoolCloseResult> | undefined;
  const stop = (graceMs = config.SHUTDOWN_GRACE_MS) => {
    stopped ??= (async () => {
      await server?.close();
      await stopReconciler?.();
      await stopScheduleRepair?.();
      await stopAlerting?.();
      const result = await pool.close(graceMs);
      await heartbeat.stop();
      // After the last job ended, before the connection it writes on closes.
      await history?.stop();
      await attempts?.stop();
      // After the last job's hooks, before the connection they write on closes.
      for (const e of extensions) await e.stop?.();
      connection.disconnect();
      await bullpen.close();
      logger.info({ timedOut: result.timedOut, abandoned: result.abandoned.length }, 'worker stopped');
      return result;
    })();
    return stopped;
  };
  return { bullpen, pool, metrics, stop };
}
