import type { Job } from 'bullmq';
import type { JobEnvelope } from '../jobs/envelope';
import type { Tenant } from '../jobs/tenant';
import type { Logger } from '../logging/logger';
import type { CancelledError } from '../errors/cancelled-error';
import { TimeoutError } from '../errors/timeout-error';
import type { JobContext, JobProgressValue } from './handler';
import type { RuntimeHooks } from './runtime-hooks';
import type { TimedAttempt } from './attempt-deadlines';
import type { ListedAttempt } from './running-attempts';

/**
 * One attempt of one job, as its handler sees it. A class rather than an object of
 * closures: at thousands of jobs per second, per-job closures, an eagerly built child
 * logger and an eagerly built AbortSignal (slow on Node 20) cost more than the job's
 * own bookkeeping. The signal and the logger are created only if the handler uses them.
 */
export class JobRun<P = unknown> implements JobContext<P>, TimedAttempt, ListedAttempt {
  readonly jobId: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  /** When the attempt started (epoch ms): the workers view's running list shows it. */
  readonly startedAt = Date.now();
  data!: P;
  private controller?: AbortController;
  private childLogger?: Logger;
  private expire?: (reason: TimeoutError | CancelledError) => void;
  /** Why the attempt was stopped, when it was: a cancel may come before the race starts. */
  private stopped?: TimeoutError | CancelledError;
  timedOut = false;
  /** Its place in its type's line of time limits (attempt-deadlines.ts). */
  deadline?: number;
  prev?: JobRun;
  next?: JobRun;
  /** Its place among its type's running attempts (running-attempts.ts). */
  runningPrev?: JobRun;
  runningNext?: JobRun;
  runningListed?: boolean;

  constructor(
    private readonly job: Job,
    readonly type: string,
    private readonly envelope: JobEnvelope | undefined,
    private readonly rootLogger: Logger,
    private readonly hooks: RuntimeHooks | undefined,
  ) {
    this.jobId = String(job.id);
    this.attempt = job.attemptsMade + 1;
    this.maxAttempts = job.opts.attempts ?? 1;
  }

  /** The job's envelope as the processor read it; undefined when it was refused. */
  get envelopeData(): JobEnvelope | undefined {
    return this.envelope;
  }

  get tenant(): Tenant | undefined {
    return this.envelope?.tenant;
  }

  get idempotencyKey(): string | undefined {
    return this.envelope?.idempotencyKey;
  }

  get originJobId(): string | undefined {
    return this.envelope?.originJobId;
  }

  get replayOf(): string | undefined {
    return this.envelope?.replayOf;
  }

  get editedReplay(): string | undefined {
    return this.envelope?.editedReplay;
  }

  /** The last phase written to the job's log. */
  private lastPhase: string | undefined;

  get requestId(): string {
    return this.envelope?.requestId ?? this.jobId;
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get logger(): Logger {
    const t = this.envelope?.tenant;
    this.childLogger ??= this.rootLogger.child({
      jobId: this.jobId,
      queue: this.type,
      attempt: this.attempt,
      maxAttempts: this.maxAttempts,
      requestId: this.envelope?.requestId,
      tenant: t ? (t.workspaceId ? `${t.orgId}/${t.workspaceId}` : t.orgId) : undefined,
      idempotencyKey: this.envelope?.idempotencyKey,
    });
    return this.childLogger;
  }

  async progress(percent: number, phase?: string, detail?: Record<string, unknown>): Promise<void> {
    const value: JobProgressValue = { percent: Math.max(0, Math.min(100, Math.round(percent))), phase, detail };
    await this.job.updateProgress(value as unknown as object);
    // A new phase is a line in the job's own log (the dashboard's Logs panel); the
    // percentages in between are the progress bar's, not the log's.
    if (phase && phase !== this.lastPhase) {
      this.lastPhase = phase;
      await this.job.log(`${new Date().toISOString()} ${value.percent}% ${phase}`);
    }
    this.hooks?.onProgress?.({ jobId: this.jobId, type: this.type, progress: value });
  }

  /** A handler's line in the job's own log, timestamped. */
  async log(line: string): Promise<void> {
    await this.job.log(`${new Date().toISOString()} ${line}`);
  }

  /**
   * Resolves or rejects with `work`, or rejects when the attempt is stopped (abortWith:
   * its time limit, attempt-deadlines.ts, or an operator's cancel), whichever comes first:
   * a handler that ignores its signal cannot hold a worker slot.
   */
  race<T>(work: Promise<T>): Promise<T> {
    // One promise settled by whichever comes first, rather than Promise.race over a second
    // one: a job's path allocates less. Whatever a stopped handler does later settles
    // nothing, and its rejection is handled here.
    return new Promise<T>((resolve, reject) => {
      this.expire = reject;
      work.then(resolve, reject);
      if (this.stopped) reject(this.stopped);
    });
  }

  /** Stops the attempt: its time ran out, or an operator cancelled it (cancel-relay.ts). */
  abortWith(reason: TimeoutError | CancelledError): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.timedOut = reason instanceof TimeoutError;
    // Made here if the handler has not asked for its signal yet, so it finds it aborted.
    this.controller ??= new AbortController();
    this.controller.abort(reason);
    this.expire?.(reason);
  }
}
