import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { cancelledBy } from '../errors/cancelled-error';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../jobs/payload-limit';
import type { QueueRegistry } from '../jobs/queues';
import { silentLogger, type Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { Lease } from '../redis/lease';
import { toDeadLetterInput } from './dead-letter-input';
import { readFailedJob } from './failed-job-reader';
import { FAILED_PAGE } from './scripts';
import type { DeadLetterSink } from './sink';

/** A job of a failed set the sweep saw: its id and its score there (when it failed). */
interface Cursor {
  /** As Redis wrote it; '' in a resume point of an older version, which held only the time. */
  id: string;
  score: string;
}

/** A cursor as it is stored: `<score>:<job id>`. */
function pointOf(c: Cursor): string {
  return `${c.score}:${c.id}`;
}

/** A stored resume point, `<score>:<job id>`, or only `<score>` as older versions wrote it. */
function cursorOf(point: string): Cursor {
  const sep = point.indexOf(':');
  return sep < 0 ? { score: point, id: '' } : { score: point.slice(0, sep), id: point.slice(sep + 1) };
}

export interface ReconcilerOptions {
  /** Where recovered dead letters go (the DeadLetterStore). */
  sink: DeadLetterSink;
  queues: QueueRegistry;
  /** Reads the failed sets' sizes and keeps the resume points (bullpen.redis). */
  redis: RedisClient;
  keys: Keyspace;
  logger?: Logger;
  /** Queues to sweep. @defaultValue every job type */
  types?: readonly string[];
  /**
   * Failed jobs' ids read per request. BullMQ's getJobs loads every job hash of the range
   * in one Lua script, which has blocked Redis for seconds on large ranges; the sweep
   * reads ids, then each job on its own. At most a third of `maxPerQueue` is read at
   * once, whatever this says: a run needs room for the page at the head, the page under
   * it (the head check stops at a page recorded in full) and a page of a backlog, or a
   * backlog behind a recorded head is never reached.
   * @defaultValue 100
   */
  pageSize?: number;
  /**
   * BULLPEN_MAX_PAYLOAD_BYTES: a failed job whose data is larger is read without it (its
   * dead letter keeps a preview), and a page is read in groups of at most 8 MiB of data.
   * @defaultValue 512 KiB
   */
  maxPayloadBytes?: number;
  /**
   * Most failed jobs looked at per queue per run, so one run stays short; at least 3 (see
   * `pageSize`). @defaultValue 1000
   */
  maxPerQueue?: number;
}

export interface ReconcileResult {
  /** Failed jobs looked at. */
  scanned: number;
  /** Dead letters written (or re-opened) because they were missing. */
  recovered: number;
}

/** The most data bytes the sweep reads at once: jobs within the limit are read in groups this large. */
const READ_BYTES = 8 * 1024 * 1024;

/**
 * Sweeps BullMQ's failed sets for final failures without a dead letter: a worker that
 * died between the final failure and the DLQ write, or a DLQ write that failed, loses
 * nothing. Each queue is read newest first, one page at a time, each page after the last
 * job of the one before (not at a position, which jobs leaving the set shift), and the scan of a
 * queue stops, once past the newest job the last run saw, at the first page whose jobs were
 * all recorded already: the runs before swept the older ones (or left a resume point
 * where their budget ran out). A failed
 * job's data is read only when it is within BULLPEN_MAX_PAYLOAD_BYTES
 * (failed-job-reader.ts): a larger one's dead letter keeps its size and a preview.
 */
export class DeadLetterReconciler {
  private readonly logger: Logger;
  private readonly pageSize: number;
  private readonly maxPerQueue: number;
  private readonly maxPayloadBytes: number;
  /** Jobs read at once: their data, each within the limit, adds up to at most READ_BYTES. */
  private readonly readGroup: number;
  private running: Promise<ReconcileResult> | undefined;
  /** Per queue, the job (its score and id) a run that ran out of budget stopped after. */
  private readonly resumeKey: string;
  /** Per queue, the job the last run's head check began at: the newest it saw. */
  private readonly topKey: string;
  /** This reconciler, as the holder of a queue's sweep lease. */
  private readonly owner = randomUUID();

  constructor(private readonly opts: ReconcilerOptions) {
    this.logger = (opts.logger ?? silentLogger).child({ component: 'dlq-reconciler' });
    const pageSize = opts.pageSize ?? 100;
    this.maxPerQueue = opts.maxPerQueue ?? 1_000;
    this.maxPayloadBytes = opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.readGroup = Math.max(1, Math.floor(READ_BYTES / this.maxPayloadBytes));
    this.resumeKey = opts.keys.tagged('dlq', 'reconciler-resume');
    this.topKey = opts.keys.tagged('dlq', 'reconciler-top');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1_000) {
      throw new Error(`pageSize must be an integer from 1 to 1000, got ${pageSize}`);
    }
    if (!Number.isInteger(this.maxPerQueue) || this.maxPerQueue < 3) {
      throw new Error(
        `maxPerQueue must be an integer of at least 3 (a page at the head, the page under it, one of a backlog), got ${this.maxPerQueue}`,
      );
    }
    // A budget of one or two pages went on the head check: a backlog behind a recorded head stalled.
    this.pageSize = Math.min(pageSize, Math.floor(this.maxPerQueue / 3));
  }

  /** A reconciler over a Bullpen's DLQ, queues and connection. */
  static fromBullpen(
    bullpen: {
      dlq: DeadLetterSink;
      queues: QueueRegistry;
      redis: RedisClient;
      keys: Keyspace;
      logger: Logger;
      config: { BULLPEN_MAX_PAYLOAD_BYTES: number };
    },
    opts: Pick<ReconcilerOptions, 'types' | 'pageSize' | 'maxPerQueue'> = {},
  ): DeadLetterReconciler {
    const { dlq, queues, redis, keys, logger, config } = bullpen;
    return new DeadLetterReconciler({ sink: dlq, queues, redis, keys, logger, maxPayloadBytes: config.BULLPEN_MAX_PAYLOAD_BYTES, ...opts });
  }

  /** One sweep of every queue. Concurrent calls share the run in progress. */
  reconcileOnce(): Promise<ReconcileResult> {
    this.running ??= this.sweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Sweeps now and then every `intervalMs` (never two sweeps at once); returns a stop
   * function that waits for a sweep in progress. Errors are logged, never thrown.
   */
  startReconciler(intervalMs: number): () => Promise<void> {
    if (!Number.isInteger(intervalMs) || intervalMs < 1_000) {
      throw new Error(`The reconciler interval must be at least 1000 ms, got ${intervalMs}`);
    }
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      try {
        const r = await this.reconcileOnce();
        if (r.recovered) this.logger.warn(r, 'reconciler recovered missing dead letters');
      } catch (err) {
        this.logger.error({ err }, 'dead-letter reconciliation failed; will retry');
      }
      if (!stopped) {
        timer = setTimeout(tick, intervalMs);
        // The worker's own lifecycle decides when the process ends, not this timer.
        timer.unref();
      }
    };
    void tick();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await this.running?.catch(() => undefined);
    };
  }

  private async sweep(): Promise<ReconcileResult> {
    const total: ReconcileResult = { scanned: 0, recovered: 0 };
    for (const type of this.opts.types ?? this.opts.queues.jobs.names) {
      const r = await this.sweepQueue(type);
      total.scanned += r.scanned;
      total.recovered += r.recovered;
    }
    return total;
  }

  /**
   * Newest first from the head, down past the job the last run's head check began at
   * (the newest it saw), and on to the first page recorded in full: everything that
   * failed since that run is read, however many of them the runtime recorded itself, so
   * one whose letter was lost is not hidden under a page of recorded ones. With no such
   * job known (a first run, or a state lost), the head check reads to the end.
   * A run that ran out of budget first leaves a resume point (the last job it
   * scanned, with its score: when it failed), so the next runs work through a large
   * backlog (an hour of failed DLQ writes) after checking the head. The point is the job
   * itself, not only its time: jobs that failed in the same millisecond share a score, and a
   * resume by score alone would scan the same ties again each run and never get past them.
   */
  private async sweepQueue(type: string): Promise<ReconcileResult> {
    const queue = this.opts.queues.get(type);
    const result: ReconcileResult = { scanned: 0, recovered: 0 };
    // One sweep of a queue at a time across worker processes: two at once each write the
    // resume point and the head job, and one's could hide jobs only the other had left
    // to read. A queue held by another process is being swept now; this run leaves it.
    const lease = new Lease(this.opts.redis, this.opts.keys.tagged('dlq', 'reconciler-lock', type));
    const held = await lease.run(this.owner, 0, () => this.sweepHeld(type, queue, lease, result));
    return held.acquired ? held.value : result;
  }

  private async sweepHeld(
    type: string,
    queue: Pick<Queue, 'keys' | 'toKey'>,
    lease: Lease,
    result: ReconcileResult,
  ): Promise<ReconcileResult> {
    const top = await this.opts.redis.hget(this.topKey, type);
    // Jobs read this run whose dead letter could not be written (a DLQ write that timed out).
    const unwritten: string[] = [];
    const head = await this.scan(type, queue, lease, undefined, top === null ? undefined : cursorOf(top), result, unwritten);
    let scan = head;
    if (head.stop === 'recorded') {
      const resume = await this.opts.redis.hget(this.resumeKey, type);
      if (resume !== null) scan = await this.scan(type, queue, lease, cursorOf(resume), undefined, result, unwritten);
    }
    // The resume point and the head job below move past these jobs, and no later run would
    // read them again: they are kept by id and tried on each run until written or gone.
    // Written before the state moves, so a run that fails here leaves the state as it was.
    const retryKey = this.opts.keys.tagged('dlq', 'reconciler-unwritten', type);
    if (scan.stop !== 'lost') await this.retryUnwritten(type, queue, retryKey, result);
    if (unwritten.length > 0) await this.opts.redis.sadd(retryKey, ...unwritten);
    // Its lease expired and another process took the queue over: that one's state stands.
    if (scan.stop === 'lost') return result;
    if (scan.stop === 'budget' && scan.last !== undefined) {
      await this.opts.redis.hset(this.resumeKey, type, pointOf(scan.last));
    } else if (scan.stop === 'end') {
      await this.opts.redis.hdel(this.resumeKey, type);
    }
    // Only now: what failed after this job was read, or is under the resume point.
    if (head.first !== undefined) await this.opts.redis.hset(this.topKey, type, pointOf(head.first));
    return result;
  }

  /**
   * Tries again the jobs earlier runs could not write a dead letter for, at most a page of
   * them a run (SRANDMEMBER: a letter that always fails cannot keep the others waiting).
   * Outside the run's budget, so they cannot stall a backlog either. A job written, or no
   * longer in the failed set, leaves the list.
   */
  private async retryUnwritten(type: string, queue: Pick<Queue, 'keys' | 'toKey'>, key: string, result: ReconcileResult): Promise<void> {
    const ids = (await this.opts.redis.srandmember(key, this.pageSize)) as string[];
    if (ids.length === 0) return;
    const { fresh, unwritten } = await this.recordJobs(type, queue, ids, result);
    const done = ids.filter((id) => !unwritten.includes(id));
    result.recovered += fresh;
    if (fresh > 0) this.logger.warn({ queue: type, recovered: fresh }, 'recovered dead letters a sweep could not write before');
    if (done.length > 0) await this.opts.redis.srem(key, ...done);
  }

  /**
   * Reads the jobs `ids` names that are still in the failed set and writes each one's dead
   * letter (record() is idempotent and cheap when the entry exists; it also re-opens an
   * entry whose job was retried from the failed tab and failed again), a group at a time.
   * Counts the jobs read in `result.scanned`; returns how many letters were new and the ids
   * whose write failed.
   */
  private async recordJobs(
    type: string,
    queue: Pick<Queue, 'keys' | 'toKey'>,
    ids: readonly string[],
    result: ReconcileResult,
  ): Promise<{ fresh: number; unwritten: string[] }> {
    // A job an operator cancelled has no dead letter unless its type asks for one: that is not a lost one.
    const keepCancelled = this.opts.queues.jobs.get(type).deadLetterOnCancel;
    let fresh = 0;
    const unwritten: string[] = [];
    for (let g = 0; g < ids.length; g += this.readGroup) {
      const group = ids.slice(g, g + this.readGroup);
      const read = await Promise.all(group.map((id) => readFailedJob(this.opts.redis, queue, id, this.maxPayloadBytes)));
      // By the id the failed set holds: the one a later run reads the job by.
      const jobs = group.flatMap((id, k) => {
        const job = read[k];
        return job === undefined ? [] : [{ id, job }];
      });
      const outcomes = await Promise.allSettled(
        jobs.map(({ job }) =>
          keepCancelled || cancelledBy(job) === undefined
            ? this.opts.sink.record(toDeadLetterInput(type, job))
            : Promise.resolve({ created: false }),
        ),
      );
      outcomes.forEach((o, i) => {
        if (o.status === 'fulfilled') fresh += o.value.created ? 1 : 0;
        else {
          unwritten.push(jobs[i].id);
          this.logger.error({ err: o.reason, queue: type, jobId: jobs[i].id }, 'could not record a failed job');
        }
      });
      result.scanned += jobs.length;
    }
    return { fresh, unwritten };
  }

  /**
   * Pages through `type`'s failed set newest first, from the head or after the job
   * `from` names, to the end or the budget; with `past`, only until the first page
   * recorded in full once it has read past that job. Each page starts after the last
   * job of the one before, found again in the set (dlq-failed-page.lua), not at a
   * position: jobs that leave the set ahead of it while the sweep runs (retried from the
   * head) cannot shift unread ones past it.
   */
  private async scan(
    type: string,
    queue: Pick<Queue, 'keys' | 'toKey'>,
    lease: Lease,
    from: Cursor | undefined,
    past: Cursor | undefined,
    result: ReconcileResult,
    unwritten: string[],
  ): Promise<{ stop: 'recorded' | 'end' | 'budget' | 'lost'; first?: Cursor; last?: Cursor }> {
    let last = from;
    let first: Cursor | undefined;
    // Past `past` once a page holds it, or a job that failed before it (it may have left the set).
    let passed = false;
    for (;;) {
      if (result.scanned >= this.maxPerQueue) return { stop: 'budget', first, last };
      const size = Math.min(this.pageSize, this.maxPerQueue - result.scanned);
      // Newest first, as getFailed reads them; ids only, each job read on its own below.
      const rows = (await FAILED_PAGE.run(this.opts.redis, [queue.keys.failed], [size, last?.score ?? '', last?.id ?? ''])) as string[];
      if (rows.length === 0) return { stop: 'end', first, last };
      const ids = rows.filter((_, i) => i % 2 === 0);
      first ??= { id: rows[0], score: rows[1] };
      last = { id: rows[rows.length - 2], score: rows[rows.length - 1] };
      if (past !== undefined && !passed) {
        for (let i = 0; i < rows.length && !passed; i += 2) {
          const score = Number(rows[i + 1]);
          passed = score < Number(past.score) || (score === Number(past.score) && rows[i] === past.id);
        }
      }
      const { fresh, unwritten: notWritten } = await this.recordJobs(type, queue, ids, result);
      const failed = notWritten.length;
      unwritten.push(...notWritten);
      result.recovered += fresh;
      if (fresh > 0) this.logger.warn({ queue: type, recovered: fresh }, 'recovered dead letters missing from the DLQ');
      if (!(await lease.renew(this.owner))) {
        this.logger.warn({ queue: type }, 'the sweep of this queue outlived its lease; another process sweeps it now');
        return { stop: 'lost', first, last };
      }
      // Only a page recorded in full, under what the last run saw, proves the older pages were swept before.
      if (passed && fresh === 0 && failed === 0) return { stop: 'recorded', first, last };
      if (ids.length < size) return { stop: 'end', first, last };
    }
  }
}
