import { hostname } from 'node:os';
import type { Job, Telemetry, Worker } from 'bullmq';
import type { Alerter } from '../alerts/alerter';
import { classifyError } from '../errors/classify';
import { deadLetterInput } from '../dlq/dead-letter-input';
import type { DeadLetterSink } from '../dlq/sink';
import { BACKOFF_CAP_MS, FULL_JITTER, fullJitterDelay } from '../jobs/backoff';
import type { JobCatalog } from '../jobs/job-catalog';
import type { Logger } from '../logging/logger';
import type { WorkerMetrics } from '../metrics/worker-metrics';
import type { AttemptRecorder } from '../metrics/history-recorder';
import { MINUTE_POINTS } from '../metrics/history-layout';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import type { AttemptLog } from './attempt-log';
import type { HandlerMap } from './handler';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../jobs/payload-limit';
import { BoundedWorker } from './bounded-worker';
import { CancelledError } from '../errors/cancelled-error';
import type { CancelRequest } from './cancel-relay';
import { FinalFailures } from './final-failures';
import type { JobRun } from './job-run';
import { buildProcessor } from './processor';
import { RunningAttempts } from './running-attempts';
import type { RuntimeHooks } from './runtime-hooks';

export interface WorkerPoolOptions {
  /** A `worker`-role connection (maxRetriesPerRequest: null); BullMQ duplicates it for blocking reads. */
  connection: RedisClient;
  keys: Keyspace;
  /** The job table: each type's concurrency, rate limit, schema and time limit. */
  jobs: JobCatalog;
  handlers: HandlerMap;
  sink: DeadLetterSink;
  alerter: Alerter;
  logger: Logger;
  metrics?: WorkerMetrics;
  /** The hourly history's tallies (lib/metrics/history-recorder.ts); absent: not recorded. */
  history?: AttemptRecorder;
  hooks?: RuntimeHooks;
  /** Each attempt's entry in its job's record (BULLPEN_ATTEMPT_RECORD); absent when it is off. */
  attempts?: AttemptLog;
  /** Run only these types; default: every type in `handlers`. */
  types?: readonly string[];
  /** BullMQ's telemetry (consumer spans), when traces are on. */
  telemetry?: Telemetry;
  /** Override the table's concurrency for every type (the benchmark uses 50). */
  concurrency?: number;
  /**
   * Milliseconds between stalled-job checks: how soon a killed worker's jobs run again.
   * @defaultValue 30000
   */
  stalledIntervalMs?: number;
  /**
   * Lock time of a running job; a killed worker's jobs return once it expires.
   * @defaultValue 30000
   */
  lockDurationMs?: number;
  /** Override every type's time limit (tests). */
  timeoutMs?: number;
  /**
   * BULLPEN_MAX_PAYLOAD_BYTES: a job whose data is larger as JSON fails for good at
   * pickup, unparsed, with a dead letter that keeps a preview (bounded-worker.ts).
   * @defaultValue 512 KiB
   */
  maxPayloadBytes?: number;
  /** Shown by CLIENT LIST and on the dashboard; default `bullpen:<host>:<pid>`. */
  name?: string;
}

/** A job still running when the grace period of a stop ran out. */
export interface AbandonedJob {
  id: string;
  type: string;
}

/** How a graceful close ended: `abandoned` lists the jobs left to the stalled check of another worker. */
export interface PoolCloseResult {
  timedOut: boolean;
  abandoned: AbandonedJob[];
}

/**
 * One BullMQ Worker per job type, each with its type's concurrency, rate limit and a
 * backoff strategy that is full jitter capped at one hour.
 */
export class WorkerPool {
  private readonly workers = new Map<string, Worker>();
  /** The attempts this process is running now, per type: what a cancel stops and a stop that runs out of time names. */
  private readonly running = new Map<string, RunningAttempts<JobRun>>();
  /** Final failures the processors saw, waiting for BullMQ to record them (final-failures.ts). */
  private readonly finalFailures = new FinalFailures();
  /** Dead-letter writes under way (after BullMQ's failed event): a close waits for them. */
  private readonly writing = new Set<Promise<void>>();
  readonly name: string;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.name = opts.name ?? `bullpen:${hostname()}:${process.pid}`;
  }

  get types(): string[] {
    return [...this.workers.keys()];
  }

  /** Each type this pool runs with its per-process concurrency: what the workers view shows. */
  describe(): Array<{ type: string; concurrency: number }> {
    return this.types.map((type) => ({ type, concurrency: this.opts.concurrency ?? this.opts.jobs.get(type).concurrency }));
  }

  /** The attempts this process runs now, every type's: what its heartbeat record lists. */
  *runningJobs(): Iterable<JobRun> {
    for (const runs of this.running.values()) yield* runs;
  }

  /** Creates the workers and starts fetching jobs. */
  async start(): Promise<void> {
    const types = this.opts.types ?? Object.keys(this.opts.handlers);
    const attempts = this.opts.attempts;
    const hooks = attempts ? attempts.hooks(this.opts.hooks) : this.opts.hooks;
    const strategy = attempts ? attempts.backoffStrategy(backoffStrategy) : backoffStrategy;
    for (const type of types) {
      const handler = this.opts.handlers[type];
      if (!handler) throw new Error(`No handler for job type "${type}" in this worker`);
      const def = this.opts.jobs.get(type);
      const running = new RunningAttempts<JobRun>();
      this.running.set(type, running);
      const processor = buildProcessor({
        type,
        definition: def,
        handler,
        sink: this.opts.sink,
        alerter: this.opts.alerter,
        deadLetters: this.finalFailures,
        logger: this.opts.logger,
        metrics: this.opts.metrics,
        history: this.opts.history,
        hooks,
        timeoutMs: this.opts.timeoutMs,
        running,
      });
      const worker = new BoundedWorker(
        type,
        // One parameter (BullMQ then makes no AbortController per job): the signal is JobRun's.
        processor,
        {
          connection: this.opts.connection,
          prefix: this.opts.keys.queuePrefix(type),
          name: this.name,
          autorun: false,
          concurrency: this.opts.concurrency ?? def.concurrency,
          limiter: def.rateLimit ? { max: def.rateLimit.max, duration: def.rateLimit.durationMs } : undefined,
          stalledInterval: this.opts.stalledIntervalMs ?? 30_000,
          lockDuration: this.opts.lockDurationMs ?? 30_000,
          maxStalledCount: 1,
          settings: { backoffStrategy: strategy },
          // BullMQ's own per-minute counters feed the dashboard's last-hour chart and fill
          // the hourly history's gaps (lib/metrics/history-layout.ts).
          metrics: { maxDataPoints: MINUTE_POINTS },
          ...(this.opts.telemetry ? { telemetry: this.opts.telemetry } : {}),
        },
        this.opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
      );
      // BullMQ's worker errors come from its Redis connections: the outage log counts them (lib/logging/outage-log.ts).
      worker.on('error', (err) => this.opts.logger.error({ err, queue: type, connection: 'redis' }, 'worker error'));
      // Emitted once BullMQ has recorded the failure (a retry or a final one); jobs failed
      // by the stalled check come here without passing through our processor's catch.
      worker.on('failed', (job, err) => {
        attempts?.failed(type, job, err);
        const write = this.onFailed(type, job, err);
        this.writing.add(write);
        void write.finally(() => this.writing.delete(write));
      });
      if (attempts) {
        worker.on('completed', (job) => attempts.completed(type, job));
        worker.on('stalled', (jobId) => attempts.stalled(worker.qualifiedName, jobId));
      }
      this.workers.set(type, worker);
    }
    for (const worker of this.workers.values()) void worker.run();
    await Promise.all([...this.workers.values()].map((w) => w.waitUntilReady()));
    this.opts.logger.info({ types, worker: this.name }, 'workers started');
  }

  /**
   * An operator's cancel (cancel-relay.ts): aborts the attempt's signal with a
   * CancelledError and ends the attempt at once, as a timeout does, so the job fails
   * without retry even when its handler ignores the signal. False when this process is
   * not running the job (another one is, or it finished).
   */
  cancel(request: CancelRequest): boolean {
    const run = this.running.get(request.queue)?.find(request.jobId);
    if (!run) return false;
    run.abortWith(new CancelledError(request.by));
    return true;
  }

  /**
   * Stops taking jobs at once and waits up to `graceMs` for the running ones. If they
   * are not done by then, returns without them: they are logged and returned as
   * abandoned, the process is expected to exit, and their locks expire so the stalled
   * check of another worker runs them again rather than losing them.
   */
  async close(graceMs: number): Promise<PoolCloseResult> {
    const workers = [...this.workers.values()];
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const graceful = Promise.all(workers.map((w) => w.close())).then(() => undefined);
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, graceMs);
    });
    await Promise.race([graceful, expired]);
    // The dead letters of the last failures BullMQ recorded, within the same grace period.
    await Promise.race([Promise.all(this.writing), expired]);
    clearTimeout(timer);
    this.workers.clear();
    if (!timedOut) return { timedOut, abandoned: [] };
    // Not BullMQ's close(true): called while a close is under way it returns that same
    // close, which waits for these very jobs (up to their time limit).
    graceful.catch((err: unknown) => this.opts.logger.error({ err }, 'worker close failed'));
    const abandoned = [...this.running].flatMap(([type, runs]) => [...runs].map((run) => ({ id: run.jobId, type })));
    this.opts.logger.warn({ graceMs, abandoned }, `grace period over; abandoning ${abandoned.length} running job(s) to the stalled check`);
    return { timedOut, abandoned };
  }

  private async onFailed(type: string, job: Job | undefined, err: Error): Promise<void> {
    if (!job) return;
    const prepared = this.finalFailures.take(job);
    // No finishedOn: BullMQ retries the job (a delay or the wait list), whatever the processor expected.
    if (!job.finishedOn) return;
    if (prepared) return prepared();
    const stalled = /stalled/i.test(err?.message ?? '');
    if (!stalled) return;
    try {
      await this.opts.sink.record(
        deadLetterInput(type, job, {
          error: { message: err.message, stack: err.stack, errorClass: classifyError(err).errorClass },
          attempts: job.attemptsMade,
          failedAt: job.finishedOn,
          source: 'stalled',
        }),
      );
      if (this.opts.metrics) this.opts.metrics.forType(type).failed++;
      this.opts.history?.record(type, 'failed', undefined, undefined);
    } catch (e) {
      this.opts.logger.error({ err: e, jobId: job.id, queue: type }, 'could not record a stalled job’s dead letter');
    }
  }
}

/** BullMQ calls this for backoff types it does not know; ours is full jitter. */
export function backoffStrategy(attemptsMade: number, type?: string, _err?: Error, job?: { opts: { backoff?: unknown } }): number {
  if (type !== FULL_JITTER) {
    throw new Error(`Unknown backoff type "${type}"`);
  }
  const backoff = job?.opts.backoff as { delay?: number } | undefined;
  return fullJitterDelay({ attempt: Math.max(1, attemptsMade), baseMs: backoff?.delay ?? 1_000, capMs: BACKOFF_CAP_MS });
}
