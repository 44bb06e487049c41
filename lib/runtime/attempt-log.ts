import type { Job } from 'bullmq';
import { classifyError } from '../errors/classify';
import { silentLogger, type Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import {
  APPEND_ATTEMPTS,
  ATTEMPT_DROPPED_FIELD,
  ATTEMPT_RECORD_FIELD,
  ATTEMPT_RECORD_MAX_ENTRIES,
  type AttemptEntry,
  encodeAttempt,
} from './attempt-record';
import type { RuntimeHooks } from './runtime-hooks';

/** Jobs one script call writes at most: a flush never holds Redis for long. */
const KEYS_PER_CALL = 200;
/** Entries held while Redis does not answer; past it the oldest are dropped (and logged). */
const MAX_PENDING = 10_000;
/** An attempt whose end BullMQ never reported (its lock lost, a closing worker) is forgotten after this. */
const FORGET_AFTER_MS = 60_000;
/** How soon a flush that Redis refused is tried again. */
const RETRY_MS = 1_000;

/** A failed attempt of this process, from the processor's hook, until BullMQ reports what it did with the job. */
interface Running {
  attempt: number;
  start: number;
  end: number;
  durationMs: number;
  errorClass: string;
  message: string;
}

/** An entry waiting for the next flush: the job's hash, its creation time and the line. */
interface Pending {
  key: string;
  created: string;
  line: string;
}

/** The backoff strategy BullMQ calls for types it does not know (lib/runtime/worker-pool.ts). */
type BackoffStrategy = (attemptsMade: number, type?: string, err?: Error, job?: { opts: { backoff?: unknown } }) => number;

export interface AttemptLogOptions {
  /** Where the records are written: the job hashes live on this Redis. */
  redis: RedisClient;
  /** This worker process, as each entry names it (`bullpen:<host>:<pid>`). */
  worker: string;
  /**
   * How long an ended attempt waits to be written: entries are written together, one
   * script call per queue, so the cost per job does not grow with the job rate. A worker
   * killed meanwhile loses at most this much of the record (never a job).
   * @defaultValue 100
   */
  flushIntervalMs?: number;
  /** @defaultValue ATTEMPT_RECORD_MAX_ENTRIES (25) */
  maxEntries?: number;
  logger?: Logger;
}

/**
 * The runtime's writer of attempt records (lib/runtime/attempt-record.ts). The
 * processor's hooks note each attempt's start, end and error; BullMQ's `completed` and
 * `failed` events, emitted once BullMQ has recorded what happened, settle its outcome
 * (a retry or a final failure, as BullMQ decided) and the backoff it applied; the entry
 * then waits, in memory, for the next flush.
 */
export class AttemptLog {
  private readonly running = new Map<string, Running>();
  /** The delay the full-jitter strategy chose for a job's retry, by the Job BullMQ passed it. */
  private readonly chosen = new WeakMap<object, number>();
  private pending = new Map<string, Pending[]>();
  private pendingCount = 0;
  private timer?: NodeJS.Timeout;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private lastSweep = Date.now();
  private readonly intervalMs: number;
  private readonly maxEntries: number;
  private readonly logger: Logger;

  constructor(private readonly opts: AttemptLogOptions) {
    this.intervalMs = opts.flushIntervalMs ?? 100;
    this.maxEntries = opts.maxEntries ?? ATTEMPT_RECORD_MAX_ENTRIES;
    if (!Number.isInteger(this.intervalMs) || this.intervalMs < 1) {
      throw new Error(`The attempt record's flush interval must be a whole number of ms >= 1, got ${this.intervalMs}`);
    }
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 2) {
      throw new Error(`An attempt record keeps the first attempt and the latest: at least 2 entries, got ${this.maxEntries}`);
    }
    this.logger = (opts.logger ?? silentLogger).child({ component: 'attempt-record' });
  }

  /**
   * Wraps the runtime's hooks: a failed attempt's run time and error, which BullMQ's
   * `failed` event does not carry. A completed attempt needs no hook: the job's own
   * processedOn and finishedOn say when it ran (`completed`), so the common job, one
   * attempt that completes, costs the record nothing at all.
   */
  hooks(next?: RuntimeHooks): RuntimeHooks {
    return {
      onStart: next?.onStart?.bind(next),
      onProgress: next?.onProgress?.bind(next),
      onComplete: next?.onComplete?.bind(next),
      onFailed: (ctx) => {
        const end = Date.now();
        const durationMs = Math.round(ctx.durationMs);
        this.running.set(runKey(ctx.type, ctx.jobId), {
          attempt: ctx.attempt,
          start: end - durationMs,
          end,
          durationMs,
          errorClass: ctx.classification.errorClass,
          message: ctx.error.message,
        });
        next?.onFailed?.(ctx);
      },
    };
  }

  /** `strategy`, noting the delay it chose for each job so the entry can say it. */
  backoffStrategy(strategy: BackoffStrategy): BackoffStrategy {
    return (attemptsMade, type, err, job) => {
      const delay = strategy(attemptsMade, type, err, job);
      if (job) this.chosen.set(job, delay);
      return delay;
    };
  }

  /**
   * The worker's `completed` event: BullMQ has stored the result, and counted the attempt
   * in attemptsMade. A job's only attempt (its first, never started before, no failure
   * behind it) is not written: BullMQ's processedOn, finishedOn and processedBy say what
   * its entry would, and the job page reads them (unrecordedCompletion). A later attempt's
   * entry takes its times from the same fields.
   */
  completed(_type: string, job: Job): void {
    if (onlyAttempt(job)) return;
    const end = job.finishedOn ?? Date.now();
    const start = job.processedOn ?? undefined;
    this.add(job, {
      attempt: Math.max(1, job.attemptsMade),
      start,
      end,
      durationMs: start === undefined ? undefined : Math.max(0, end - start),
      worker: this.opts.worker,
      outcome: 'completed',
    });
  }

  /**
   * The worker's `failed` event: BullMQ has retried the job (no finishedOn) or failed it
   * for good. A job failed without passing through the processor (the stalled check's
   * second stall) gets an entry without a start or a worker.
   */
  failed(type: string, job: Job | undefined, err: Error): void {
    if (!job) return;
    const r = this.take(type, job);
    const final = Boolean(job.finishedOn);
    // moveToFailed sets job.delay only to a non-zero delay: an immediate retry leaves the last one.
    const backoffMs = final ? undefined : (this.chosen.get(job) ?? (job.opts.backoff ? job.delay : 0));
    this.chosen.delete(job);
    const outcome = final ? 'failed' : 'retried';
    if (r) {
      this.add(job, {
        attempt: r.attempt,
        start: r.start,
        end: r.end,
        durationMs: r.durationMs,
        worker: this.opts.worker,
        outcome,
        errorClass: r.errorClass,
        message: r.message,
        backoffMs,
      });
      return;
    }
    const stalled = /stalled/i.test(err?.message ?? '');
    this.add(job, {
      attempt: job.attemptsMade,
      end: job.finishedOn ?? Date.now(),
      outcome,
      errorClass: stalled ? 'stalled' : classifyError(err).errorClass,
      message: err?.message,
      backoffMs,
    });
  }

  /**
   * The worker's `stalled` event: a job whose worker stopped renewing its lock went back
   * to the wait list. That attempt's worker is gone, and with it its start: the entry
   * says when the stalled check found it.
   */
  stalled(queueQualifiedName: string, jobId: string): void {
    this.push(`${queueQualifiedName}:${jobId}`, '', encodeAttempt({ end: Date.now(), outcome: 'stalled', errorClass: 'stalled' }));
  }

  /** Entries waiting for the next flush (tests, the benchmark). */
  get waiting(): number {
    return this.pendingCount;
  }

  /** Writes what is left; later entries are written at once. After the workers closed, before Redis does. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch(noop);
  }

  /** Writes every waiting entry; resolves with how many were written (jobs gone meanwhile get none). */
  flush(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(noop);
    return run;
  }

  private take(type: string, job: Job): Running | undefined {
    const key = runKey(type, String(job.id));
    const r = this.running.get(key);
    this.running.delete(key);
    return r;
  }

  private add(job: Job, entry: AttemptEntry): void {
    this.push(`${job.queueQualifiedName}:${job.id}`, String(job.timestamp), encodeAttempt(entry));
  }

  private push(key: string, created: string, line: string): void {
    // A queue's job keys share its hash tag: one script call per queue stays on one slot.
    const queue = key.slice(0, key.lastIndexOf(':'));
    let list = this.pending.get(queue);
    if (!list) {
      list = [];
      this.pending.set(queue, list);
    }
    list.push({ key, created, line });
    this.pendingCount++;
    if (this.pendingCount > MAX_PENDING) this.dropOldest();
    this.schedule(this.stopped ? 0 : this.intervalMs);
  }

  /** A flush in `delayMs`, unless one is due already; the timer keeps no process alive. */
  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(noop);
    }, delayMs);
    this.timer.unref();
  }

  private async drain(): Promise<number> {
    this.sweep();
    if (this.pendingCount === 0) return 0;
    const taken = this.pending;
    this.pending = new Map();
    this.pendingCount = 0;
    let written = 0;
    let failure: unknown;
    for (const list of taken.values()) {
      for (let i = 0; i < list.length; i += KEYS_PER_CALL) {
        const chunk = list.slice(i, i + KEYS_PER_CALL);
        try {
          const args: Array<string | number> = [ATTEMPT_RECORD_FIELD, ATTEMPT_DROPPED_FIELD, this.maxEntries];
          for (const p of chunk) args.push(p.created, p.line);
          written += Number(
            await APPEND_ATTEMPTS.run(
              this.opts.redis,
              chunk.map((p) => p.key),
              args,
            ),
          );
        } catch (err) {
          // Kept for the next flush; the script skips a line the record already holds, so a
          // call that ran but whose answer was lost does not write it twice.
          failure ??= err;
          this.putBack(list.slice(i));
          break;
        }
      }
    }
    if (failure) {
      // Redis is away: try again in a second, not at every flush interval.
      this.schedule(RETRY_MS);
      this.logger.warn({ err: failure, waiting: this.pendingCount }, 'could not write attempt records; kept for the next flush');
      throw failure;
    }
    return written;
  }

  private putBack(list: Pending[]): void {
    for (const p of list) {
      const queue = p.key.slice(0, p.key.lastIndexOf(':'));
      const kept = this.pending.get(queue) ?? [];
      kept.push(p);
      this.pending.set(queue, kept);
      this.pendingCount++;
      if (this.pendingCount > MAX_PENDING) this.dropOldest();
    }
  }

  private dropOldest(): void {
    const [queue, list] = this.pending.entries().next().value as [string, Pending[]];
    list.shift();
    this.pendingCount--;
    if (list.length === 0) this.pending.delete(queue);
    this.logger.warn({ max: MAX_PENDING }, 'attempt records waiting for Redis over the bound: the oldest entry was dropped');
  }

  /** Forgets attempts whose end BullMQ never reported (a lost lock, a closing worker). */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < FORGET_AFTER_MS) return;
    this.lastSweep = now;
    for (const [key, r] of this.running) if (now - r.end > FORGET_AFTER_MS) this.running.delete(key);
  }
}

const runKey = (type: string, jobId: string) => `${type}\u0000${jobId}`;

/**
 * Whether a completed `job` ran once only: one attempt made, moved to active once (a
 * stalled run counts in attemptsStarted, not in attemptsMade) and no failure's stack kept
 * (an operator's retry of a failed job starts over at attempt 1 but keeps them).
 */
function onlyAttempt(job: Job): boolean {
  return (job.attemptsMade ?? 0) <= 1 && (job.attemptsStarted ?? 0) <= 1 && !job.stacktrace?.length;
}

function noop(): void {}
