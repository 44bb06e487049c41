import { hostname } from 'node:os';
import { z } from 'zod';
import { tenantSchema, type Tenant } from '../jobs/tenant';
import type { Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';

/** How often a worker process writes its record. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A record not refreshed for this long expires: its process is gone. */
export const HEARTBEAT_TTL_MS = 60_000;
/** Running jobs a record lists at most (the count is always exact). */
export const HEARTBEAT_MAX_RUNNING = 100;

export const workerRecordSchema = z.object({
  /** The pool's name, as BullMQ's CLIENT SETNAME shows it: `bullpen:<host>:<pid>`. */
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.number().int(),
  heartbeatAt: z.number().int(),
  queues: z.array(z.object({ type: z.string(), concurrency: z.number().int() })),
  running: z.array(
    z.object({
      jobId: z.string(),
      type: z.string(),
      attempt: z.number().int(),
      startedAt: z.number().int(),
      tenant: tenantSchema.optional(),
    }),
  ),
  runningTotal: z.number().int(),
});
export type WorkerRecord = z.infer<typeof workerRecordSchema>;

/** A running attempt as the record lists it (a JobRun has these). */
export interface RunningJob {
  readonly jobId: string;
  readonly type: string;
  readonly attempt: number;
  readonly startedAt: number;
  readonly tenant?: Tenant;
}

/** Where the records live: one key per process, and an index by last heartbeat. */
export function heartbeatKeys(keys: Keyspace): { record: (id: string) => string; index: string } {
  return { record: (id) => keys.tagged('workers', 'process', id), index: keys.tagged('workers', 'index') };
}

/**
 * A worker process's record in Redis, for the dashboard's workers view (Sidekiq's Busy,
 * Oban's Instances): host, pid, queues and their concurrency, when it started, its last
 * heartbeat, and the jobs it runs now, as the worker pool lists them. Written every
 * HEARTBEAT_INTERVAL_MS with a TTL, so a killed process's record ends on its own; a
 * graceful stop deletes it.
 */
export class WorkerHeartbeat {
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private readonly k: ReturnType<typeof heartbeatKeys>;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
    private readonly info: {
      id: string;
      queues: WorkerRecord['queues'];
      /**
       * The jobs the process runs now, read at each beat: the pool's own list of running
       * attempts (worker-pool.ts), so keeping the record costs a job nothing.
       */
      running: () => Iterable<RunningJob>;
    },
    private readonly logger: Logger,
    private readonly intervalMs = HEARTBEAT_INTERVAL_MS,
  ) {
    this.k = heartbeatKeys(keys);
  }

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    // The worker's lifecycle decides when the process ends, not this timer.
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.redis
      .pipeline()
      .del(this.k.record(this.info.id))
      .zrem(this.k.index, this.info.id)
      .exec()
      .catch(() => undefined);
  }

  /** The record as it is now. */
  snapshot(now = Date.now()): WorkerRecord {
    const running = [...this.info.running()]
      .map((r) => ({
        jobId: r.jobId,
        type: r.type,
        attempt: r.attempt,
        startedAt: r.startedAt,
        ...(r.tenant ? { tenant: r.tenant } : {}),
      }))
      .sort((a, b) => a.startedAt - b.startedAt);
    return {
      id: this.info.id,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      heartbeatAt: now,
      queues: this.info.queues,
      running: running.slice(0, HEARTBEAT_MAX_RUNNING),
      runningTotal: running.length,
    };
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    try {
      // One round trip: the record and the index share the `{workers}` hash tag (one slot on a cluster).
      const replies = await this.redis
        .pipeline()
        .set(this.k.record(this.info.id), JSON.stringify(this.snapshot(now)), 'PX', HEARTBEAT_TTL_MS)
        .zadd(this.k.index, now, this.info.id)
        // Index entries of processes whose record expired long ago.
        .zremrangebyscore(this.k.index, '-inf', now - 10 * HEARTBEAT_TTL_MS)
        .exec();
      const failed = replies?.find(([err]) => err);
      if (failed) throw failed[0];
    } catch (err) {
      this.logger.warn({ err }, 'worker heartbeat not written; will retry');
    }
  }
}
