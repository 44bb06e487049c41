import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, isAppError } from '../errors/app-error';
import { withinRedisBound } from '../redis/redis-bound';
import { type JobEnvelope, MAX_IDEMPOTENCY_KEY } from './envelope';
import { jobIdForKey } from './idempotency-key';
import type { JobInputOf, JobNameOf, JobTable } from './job-definition';
import { PRIORITY, PRIORITY_NAMES, type PriorityName } from './priority';
import { assertWithinLimit, DEFAULT_MAX_PAYLOAD_BYTES } from './payload-limit';
import type { QueueRegistry } from './queues';
import { tenantSchema, type Tenant } from './tenant';

export const dispatchOptionsSchema = z
  .object({
    tenant: tenantSchema.optional(),
    priority: z.enum(PRIORITY_NAMES as [PriorityName, ...PriorityName[]]).optional(),
    delayMs: z
      .number()
      .int()
      .min(0)
      .max(365 * 24 * 3_600_000)
      .optional(),
    /** A duplicate dispatch with the same key is a no-op while the first job is kept. */
    idempotencyKey: z.string().min(1).max(MAX_IDEMPOTENCY_KEY).optional(),
    attempts: z.number().int().min(1).max(100).optional(),
    requestId: z.string().min(1).max(128).optional(),
  })
  .strict();
export type DispatchOptions = z.input<typeof dispatchOptionsSchema>;

export interface DispatchResult {
  jobId: string;
  type: string;
  /** True when an earlier dispatch with the same idempotency key already holds the job. */
  deduplicated: boolean;
}

/** One job of a bulk dispatch. */
export interface BulkItem<K extends string = string, D = unknown> {
  type: K;
  data: D;
  opts?: DispatchOptions;
}

/**
 * The dispatcher as an application sees it: typed by its job table, so a payload that
 * does not fit its type is a compile error before it is a VALIDATION error. A
 * `Dispatcher` is one (`const d: TypedDispatcher<MyJobs> = bullpen.dispatcher`).
 */
export interface TypedDispatcher<T extends JobTable> {
  dispatch<K extends JobNameOf<T>>(type: K, data: JobInputOf<T, K>, opts?: DispatchOptions): Promise<DispatchResult>;
  dispatchBulk(items: readonly BulkItemOf<T>[]): Promise<DispatchResult[]>;
}

/** A bulk item of a table: its type names one of the table's types and its data fits that type. */
export type BulkItemOf<T extends JobTable> = { [K in JobNameOf<T>]: BulkItem<K, JobInputOf<T, K>> }[JobNameOf<T>];

/** A bulk dispatch larger than this is refused: split it, BullMQ sends it in one MULTI. */
export const MAX_DISPATCH_BULK = 1_000;

/** How long a dispatch may take before it fails with REDIS_UNAVAILABLE (config BULLPEN_DISPATCH_TIMEOUT_MS). */
export const DEFAULT_DISPATCH_TIMEOUT_MS = 5_000;

export interface DispatcherOptions {
  /**
   * The bound of one dispatch (or one bulk dispatch), Redis's readiness included: past
   * it the dispatch fails with AppError REDIS_UNAVAILABLE (retryable) instead of waiting
   * for Redis to come back (docs/producers.md, "During a Redis outage").
   * @defaultValue 5000 (config BULLPEN_DISPATCH_TIMEOUT_MS)
   */
  timeoutMs?: number;
  /** BULLPEN_MAX_PAYLOAD_BYTES: a job whose data is larger as JSON is refused. @defaultValue 512 KiB */
  maxPayloadBytes?: number;
}

/**
 * Validates and enqueues jobs. Nothing reaches Redis until every part is valid (the
 * payload against its schema, the options, the data's size), so a refused dispatch
 * changes nothing; nothing is sent before the connection is ready, and a dispatch
 * answers within its bound whatever Redis does.
 */
export class Dispatcher {
  private readonly timeoutMs: number;
  private readonly maxPayloadBytes: number;

  constructor(
    private readonly queues: QueueRegistry,
    private readonly handled: ReadonlySet<string>,
    opts: DispatcherOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_DISPATCH_TIMEOUT_MS;
    this.maxPayloadBytes = opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs <= 0) {
      throw new AppError('VALIDATION', `The dispatch timeout must be a positive integer of ms, got ${this.timeoutMs}`);
    }
  }

  /** Whether `type` may be dispatched: it is in the job table and has a handler in this build. */
  handles(type: string): boolean {
    return this.handled.has(type) && this.queues.jobs.has(type);
  }

  async dispatch(type: string, data: unknown, opts: DispatchOptions = {}): Promise<DispatchResult> {
    const job = this.prepare(type, data, opts);
    return withinRedisBound(this.queues.connection, this.timeoutMs, `the dispatch of a ${job.type} job`, async () => {
      const added = await this.queues.get(job.type).add(job.type, job.envelope, job.options);
      const id = added.id ?? job.options.jobId;
      return { jobId: this.requireId(job.type, id), type: job.type, deduplicated: await this.wasDuplicate(job, id) };
    });
  }

  /** Validates every item first; then one addBulk per queue. */
  async dispatchBulk(items: readonly BulkItem[]): Promise<DispatchResult[]> {
    if (items.length > MAX_DISPATCH_BULK) {
      throw new AppError('VALIDATION', `A bulk dispatch holds at most ${MAX_DISPATCH_BULK} jobs, got ${items.length}`);
    }
    const prepared = items.map((item, i) => {
      try {
        return this.prepare(item.type, item.data, item.opts ?? {});
      } catch (err) {
        if (isAppError(err)) throw new AppError(err.code, `item ${i}: ${err.message}`, err.details);
        throw err;
      }
    });
    const byType = new Map<string, Array<{ index: number; job: Prepared }>>();
    prepared.forEach((job, index) => {
      const list = byType.get(job.type) ?? [];
      list.push({ index, job });
      byType.set(job.type, list);
    });
    return withinRedisBound(this.queues.connection, this.timeoutMs, `a bulk dispatch of ${items.length} jobs`, () =>
      this.addBulk(byType, items.length),
    );
  }

  private async addBulk(byType: Map<string, Array<{ index: number; job: Prepared }>>, count: number): Promise<DispatchResult[]> {
    const results: DispatchResult[] = new Array(count);
    for (const [type, list] of byType) {
      const added = await this.queues.get(type).addBulk(list.map(({ job }) => ({ name: type, data: job.envelope, opts: job.options })));
      await Promise.all(
        added.map(async (a, i) => {
          const { index, job } = list[i];
          const id = a.id ?? job.options.jobId;
          results[index] = { jobId: this.requireId(type, id), type, deduplicated: await this.wasDuplicate(job, id) };
        }),
      );
    }
    return results;
  }

  private prepare(type: string, data: unknown, rawOpts: DispatchOptions): Prepared {
    const def = this.queues.jobs.get(type);
    if (!this.handled.has(type)) {
      throw new AppError('NO_HANDLER', `Job type "${type}" has no handler in this build; it cannot be dispatched`, { type });
    }
    const opts = dispatchOptionsSchema.safeParse(rawOpts);
    if (!opts.success) {
      throw new AppError('VALIDATION', `Invalid dispatch options: ${z.prettifyError(opts.error)}`, {
        issues: opts.error.issues,
      });
    }
    const payload = def.schema.safeParse(data);
    if (!payload.success) {
      throw new AppError('VALIDATION', `Invalid ${type} payload: ${z.prettifyError(payload.error)}`, {
        issues: payload.error.issues,
      });
    }
    const o = opts.data;
    const envelope: JobEnvelope = {
      payload: payload.data,
      tenant: o.tenant as Tenant | undefined,
      idempotencyKey: o.idempotencyKey,
      requestId: o.requestId ?? randomUUID(),
      dispatchedAt: Date.now(),
    };
    // Measured as BullMQ will store it, before anything is written. The one serialization
    // more per dispatch is the producer's; the runtime measures the text it reads.
    assertWithinLimit(type, envelope, this.maxPayloadBytes);
    const options: Prepared['options'] = {
      ...(o.priority ? { priority: PRIORITY[o.priority] } : {}),
      ...(o.delayMs ? { delay: o.delayMs } : {}),
      ...(o.attempts ? { attempts: o.attempts } : {}),
      ...(o.idempotencyKey ? { jobId: jobIdForKey('idem', o.idempotencyKey) } : {}),
    };
    return { type, envelope, options };
  }

  private requireId(type: string, jobId: string | undefined): string {
    if (!jobId) throw new Error(`BullMQ returned no id for a ${type} job`);
    return jobId;
  }

  /**
   * BullMQ's add returns the id of the job already holding a deterministic id without
   * saying so; reading the stored envelope back tells whether it was ours.
   */
  private async wasDuplicate(job: Prepared, id: string | undefined): Promise<boolean> {
    if (!job.options.jobId || !id) return false;
    const stored = await this.queues.get(job.type).getJob(id);
    return (stored?.data as JobEnvelope | undefined)?.requestId !== job.envelope.requestId;
  }
}

interface Prepared {
  type: string;
  envelope: JobEnvelope;
  options: { priority?: number; delay?: number; attempts?: number; jobId?: string };
}
