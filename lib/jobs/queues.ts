import { Queue, type JobsOptions, type Telemetry } from 'bullmq';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { FULL_JITTER } from './backoff';
import type { JobCatalog } from './job-catalog';
import { PRIORITY } from './priority';

/** Retention of finished jobs (docs/requirements.md#queues-retries-and-backoff): the last 100 completed, 1,000 failed. */
export const RETENTION = { completed: 100, failed: 1_000 } as const;

/**
 * The BullMQ Queue of each job type, created on first use and reused: a Queue holds a
 * connection and loaded scripts, so one per type per process is the right number.
 * Every Queue is made with `skipMetasUpdate`: BullMQ's Queue otherwise writes `version`
 * and `opts.maxLenEvents` into the meta hash as it starts, so merely opening a queue to
 * read it (a viewer's page load) would write, into another application's hash when the
 * reference named one. Adding a job still sets `opts.maxLenEvents` when it is missing.
 */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();
  /** Queues the table does not define, by `<prefix>\u0000<name>`, oldest first (bounded). */
  private readonly foreignQueues = new Map<string, Queue>();

  constructor(
    /** The connection every Queue of the registry shares. */
    readonly connection: RedisClient,
    private readonly keys: Keyspace,
    /** The job table the queues are made for. */
    readonly jobs: JobCatalog,
    /** BullMQ's telemetry for the table's queues (producer spans), when traces are on. */
    private readonly telemetry?: Telemetry,
  ) {}

  /** The queue of a type of the table; UNKNOWN_JOB_TYPE for any other name. */
  get(type: string): Queue {
    let q = this.queues.get(type);
    if (!q) {
      q = new Queue(type, {
        connection: this.connection,
        prefix: this.keys.queuePrefix(type),
        skipMetasUpdate: true,
        defaultJobOptions: this.defaultJobOptions(type),
        ...(this.telemetry ? { telemetry: this.telemetry } : {}),
      });
      this.keep(this.queues, type, q);
    }
    return q;
  }

  /**
   * Keeps a new Queue for reuse. Its errors surface on the calls that hit them (an
   * unhandled 'error' would crash). A BullMQ Queue starts once (INFO for the server's
   * version, then its scripts) and keeps that start's outcome: when it failed, because
   * Redis dropped or a cluster was failing over at that moment, every later call on that
   * Queue fails with the same error. So the call that met the failure reports it, and the
   * Queue is forgotten: the next call gets a new one.
   */
  private keep(cache: Map<string, Queue>, key: string, q: Queue): void {
    q.on('error', () => undefined);
    cache.set(key, q);
    q.waitUntilReady().catch(() => {
      if (cache.get(key) !== q) return;
      cache.delete(key);
      void q.close().catch(() => undefined);
    });
  }

  /**
   * A BullMQ queue this table does not define (another service's, under another
   * prefix), for the dashboard's generic operations. No default job options: its
   * producers set their own. At most 200 are kept open; the oldest is closed first.
   */
  foreign(prefix: string, name: string): Queue {
    const key = `${prefix}\u0000${name}`;
    let q = this.foreignQueues.get(key);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix, skipMetasUpdate: true });
      this.keep(this.foreignQueues, key, q);
      if (this.foreignQueues.size > 200) {
        const [oldestKey, oldest] = this.foreignQueues.entries().next().value as [string, Queue];
        this.foreignQueues.delete(oldestKey);
        void oldest.close().catch(() => undefined);
      }
    }
    return q;
  }

  /** The table's defaults of `type` as BullMQ job options. */
  defaultJobOptions(type: string): JobsOptions {
    const def = this.jobs.get(type);
    return {
      attempts: def.attempts,
      backoff:
        def.backoff.type === 'fixed' ? { type: 'fixed', delay: def.backoff.delayMs } : { type: FULL_JITTER, delay: def.backoff.delayMs },
      priority: PRIORITY[def.priority],
      removeOnComplete: { count: RETENTION.completed },
      removeOnFail: { count: RETENTION.failed },
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values(), ...this.foreignQueues.values()].map((q) => q.close()));
    this.queues.clear();
    this.foreignQueues.clear();
  }
}
