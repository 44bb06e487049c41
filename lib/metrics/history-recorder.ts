import { silentLogger, type Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { bucketOf, HISTOGRAM_BUCKETS } from './history-buckets';
import { FIELD, historyExpiresAt, historyKey, hourOf } from './history-layout';

/** How an attempt ended, as the history counts it. */
export type AttemptOutcome = 'completed' | 'failed' | 'retried';

/** What the runtime tells the history about each attempt that ends (lib/runtime/processor.ts). */
export interface AttemptRecorder {
  /**
   * One attempt of a job of `queue` ended: `completed`, `failed` for good, or `retried`
   * (only its run time counts). `durationMs`: the handler's run time, absent when it never
   * ran (a stalled job). `waitMs`: a first attempt's wait from when it could run to its
   * start, absent for later attempts.
   */
  record(queue: string, outcome: AttemptOutcome, durationMs: number | undefined, waitMs: number | undefined): void;
}

/** One queue-hour held in memory until the next flush. */
interface HourTally {
  completed: number;
  failed: number;
  duration: Float64Array;
  wait: Float64Array;
}

export interface HistoryRecorderOptions {
  redis: RedisClient;
  keys: Keyspace;
  /**
   * How often the tallies are written. A process that dies loses at most this much of
   * the history's counts (BullMQ's own per-minute counters are written with each job).
   * @defaultValue 5000
   */
  flushIntervalMs?: number;
  logger?: Logger;
  /** The clock that decides an attempt's hour (tests pass one). @defaultValue Date.now */
  now?: () => number;
}

/**
 * The hourly roll-up's writer. The runtime calls `record` as each attempt ends: a few
 * additions to in-memory tallies, no Redis command. Every few seconds each queue's
 * tallies go to Redis in one pipeline of HINCRBYs on its hour's hash (lib/metrics/
 * history-layout.ts), with the hash's expiry, so the cost per job does not grow with
 * the job rate and a flush is one round trip per queue that had jobs.
 */
export class HistoryRecorder implements AttemptRecorder {
  /** Queue → hour → tally. */
  private tallies = new Map<string, Map<number, HourTally>>();
  private timer?: NodeJS.Timeout;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly opts: HistoryRecorderOptions) {
    this.intervalMs = opts.flushIntervalMs ?? 5_000;
    if (!Number.isInteger(this.intervalMs) || this.intervalMs < 10) {
      throw new Error(`The history flush interval must be an integer of at least 10 ms, got ${this.intervalMs}`);
    }
    this.now = opts.now ?? Date.now;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'history' });
  }

  record(queue: string, outcome: AttemptOutcome, durationMs: number | undefined, waitMs: number | undefined): void {
    const t = this.tally(queue, hourOf(this.now()));
    if (outcome === 'completed') t.completed++;
    else if (outcome === 'failed') t.failed++;
    if (durationMs !== undefined) t.duration[bucketOf(durationMs)]++;
    if (waitMs !== undefined) t.wait[bucketOf(waitMs)]++;
  }

  /** Starts the periodic flush; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(noop), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left: after the workers closed, before Redis does. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(noop);
  }

  /**
   * Writes the tallies so far, one pipeline per queue, and resolves with the number of
   * queue-hours written. Flushes run one after another; a queue whose write failed keeps
   * its tallies for the next.
   */
  flush(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(noop);
    return run;
  }

  private tally(queue: string, hour: number): HourTally {
    let hours = this.tallies.get(queue);
    if (!hours) {
      hours = new Map();
      this.tallies.set(queue, hours);
    }
    let t = hours.get(hour);
    if (!t) {
      t = { completed: 0, failed: 0, duration: new Float64Array(HISTOGRAM_BUCKETS), wait: new Float64Array(HISTOGRAM_BUCKETS) };
      hours.set(hour, t);
    }
    return t;
  }

  private async drain(): Promise<number> {
    if (this.tallies.size === 0) return 0;
    const taken = [...this.tallies];
    this.tallies = new Map();
    const results = await Promise.allSettled(taken.map(([queue, hours]) => this.write(queue, hours)));
    let written = 0;
    let failure: unknown;
    results.forEach((r, i) => {
      const [queue, hours] = taken[i];
      // A lost connection applied none of the queue's hours; a refused command, only its own hour.
      const unwritten = r.status === 'fulfilled' ? r.value.unwritten : [...hours.keys()];
      if (r.status === 'rejected') failure ??= r.reason;
      else if (r.value.error) failure ??= r.value.error;
      written += hours.size - unwritten.length;
      for (const hour of unwritten) this.restore(queue, hour, hours.get(hour) as HourTally);
    });
    if (failure) {
      this.logger.warn({ err: failure, stopping: !this.timer }, 'could not write the job history; kept for the next flush');
      throw failure;
    }
    return written;
  }

  /**
   * One queue's hours in one MULTI: its keys share the queue's `{history:<queue>}` tag.
   * A connection lost before EXEC applies none of it. Redis does not roll a transaction
   * back when one of its commands is refused (WRONGTYPE on a key overwritten by hand), but
   * every command of an hour targets that hour's one key, so a refusal fails that hour's
   * increments and no other's: only those hours are put back, and nothing counts twice.
   */
  private async write(queue: string, hours: Map<number, HourTally>): Promise<{ unwritten: number[]; error?: Error }> {
    const p = this.opts.redis.multi();
    const spans: Array<{ hour: number; from: number; to: number }> = [];
    let queued = 0;
    for (const [hour, t] of hours) {
      const key = historyKey(this.opts.keys, queue, hour);
      const fields: Array<[string, number]> = [
        [FIELD.completed, t.completed],
        [FIELD.failed, t.failed],
      ];
      for (let i = 0; i < HISTOGRAM_BUCKETS; i++) fields.push([`${FIELD.duration}${i}`, t.duration[i]], [`${FIELD.wait}${i}`, t.wait[i]]);
      const from = queued;
      for (const [field, by] of fields) {
        if (!by) continue;
        p.hincrby(key, field, by);
        queued++;
      }
      spans.push({ hour, from, to: queued });
      p.pexpireat(key, historyExpiresAt(hour));
      queued++;
    }
    const replies = (await p.exec()) ?? [];
    let error: Error | undefined;
    const unwritten = spans
      .filter(({ from, to }) => {
        const refused = replies.slice(from, to).find(([err]) => err)?.[0];
        error ??= refused ?? undefined;
        return refused !== undefined;
      })
      .map((s) => s.hour);
    return { unwritten, error };
  }

  private restore(queue: string, hour: number, from: HourTally): void {
    const t = this.tally(queue, hour);
    t.completed += from.completed;
    t.failed += from.failed;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      t.duration[i] += from.duration[i];
      t.wait[i] += from.wait[i];
    }
  }
}

function noop(): void {}
