import type { Job, Queue } from 'bullmq';
import { z } from 'zod';
import { tenantCovers } from './tenant-key';
import type { TenantScopedStore } from './tenant-scoped-store';
import { silentLogger, type Logger } from '../logging/logger';
import type { QueueRegistry } from './queues';
import { isTenant, tenantSchema, type Tenant } from './tenant';

/**
 * The states whose jobs keep their data and can be removed. BullMQ 6 has no paused list
 * any more: a paused queue's jobs stay in `waiting`, so they are walked there.
 */
const REMOVABLE_STATES = ['delayed', 'waiting-children', 'prioritized', 'waiting', 'completed', 'failed'] as const;
/**
 * Counted and exported: a running job is the tenant's data too, but its lock belongs to
 * a worker, so it is never removed. The order follows a job's way through the queue, so
 * a job that moves on while we walk is seen twice rather than not at all.
 */
const ALL_STATES = ['delayed', 'waiting-children', 'prioritized', 'waiting', 'active', 'completed', 'failed'] as const;
type WalkedState = (typeof ALL_STATES)[number];

/** One of the tenant's jobs as exported: plain JSON, no BullMQ object. */
export const queuedJobRecordSchema = z.object({
  queue: z.string(),
  jobId: z.string(),
  state: z.enum(ALL_STATES),
  name: z.string(),
  tenant: tenantSchema,
  /** The job's data as BullMQ stores it: the envelope (payload, tenant, requestId, ...). */
  data: z.unknown(),
  /** When the job was added (epoch ms). */
  timestamp: z.number(),
});
export type QueuedJobRecord = z.infer<typeof queuedJobRecordSchema>;

export interface QueuedJobsTenantStoreOptions {
  /** The queues walked. @defaultValue every type of the job table */
  types?: readonly string[];
  /**
   * Jobs per `getJobs` call. BullMQ loads every job hash of a range in one Lua script,
   * so a bounded page keeps each call short on a large queue.
   * @defaultValue 200
   */
  pageSize?: number;
  /**
   * Queues whose jobs are not the tenant's data. A data-deletion job names the tenant it
   * erases: it is the request, kept like the deletion's receipt (and trimmed by its
   * queue's retention), and while it runs it would otherwise count itself as a remainder.
   * @defaultValue none
   */
  exclude?: readonly string[];
  logger?: Logger;
}

/**
 * BullMQ's own jobs as a tenant store: every job's data is an envelope that may name a
 * tenant, and finished jobs are kept (up to the queue's retention) with that data. The
 * store walks each queue's states a bounded page at a time, newest first, and acts on
 * the jobs whose envelope tenant falls under the given one.
 */
export class QueuedJobsTenantStore implements TenantScopedStore {
  readonly name = 'queued-jobs';
  private readonly types: readonly string[];
  private readonly pageSize: number;
  private readonly logger: Logger;

  constructor(
    private readonly queues: QueueRegistry,
    opts: QueuedJobsTenantStoreOptions = {},
  ) {
    const exclude = new Set(opts.exclude ?? []);
    this.types = (opts.types ?? queues.jobs.names).filter((t) => !exclude.has(t));
    this.pageSize = opts.pageSize ?? 200;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 1_000) {
      throw new Error(`The job page size must be an integer from 1 to 1000, got ${this.pageSize}`);
    }
    this.logger = (opts.logger ?? silentLogger).child({ component: 'queued-jobs-store' });
  }

  /** Every job of the tenant, running ones included: a deletion that leaves one is not done. */
  async countByTenant(tenant: Tenant): Promise<number> {
    let n = 0;
    for (const type of this.types) {
      const queue = this.queues.get(type);
      for (const state of await nonEmpty(queue, ALL_STATES)) {
        for await (const jobs of this.pages(queue, state)) for (const job of jobs) if (owned(job, tenant)) n++;
      }
    }
    return n;
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for (const type of this.types) {
      const queue = this.queues.get(type);
      for (const state of await nonEmpty(queue, ALL_STATES)) {
        for await (const jobs of this.pages(queue, state)) {
          for (const job of jobs) {
            const owner = tenantOf(job);
            if (owner && tenantCovers(tenant, owner)) yield toRecord(type, state, owner, job);
          }
        }
      }
    }
  }

  /**
   * Removes the tenant's jobs in every state but active. A running job (or one a worker
   * takes between our read and the removal) stays: it is still counted, so a deletion
   * reports it and its retry removes the job once it has finished.
   */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    let removed = 0;
    for (const type of this.types) {
      const queue = this.queues.get(type);
      for (const state of await nonEmpty(queue, REMOVABLE_STATES)) {
        let start = 0;
        for (;;) {
          const jobs = await queue.getJobs(state, start, start + this.pageSize - 1);
          if (jobs.length === 0) break;
          const outcomes = await Promise.all(jobs.filter((j) => owned(j, tenant)).map((j) => this.remove(queue, j)));
          const n = outcomes.filter(Boolean).length;
          removed += n;
          // A removal pulls the jobs after it into this window, so after one the same
          // window is read again; a window with nothing removed is passed.
          if (n === 0) start += this.pageSize;
        }
      }
    }
    if (removed) this.logger.info({ tenant, removed }, 'jobs of a tenant removed');
    return removed;
  }

  /**
   * One state's jobs a page at a time, newest first. From that end, what moves while we
   * walk (jobs added at the head, workers taking from the tail, retention trimming the
   * oldest) can show a job twice but not hide one; a job already on the previous page is
   * not yielded again.
   */
  private async *pages(queue: Queue, state: WalkedState): AsyncGenerator<Job[]> {
    let previous = new Set<string>();
    for (let start = 0; ; start += this.pageSize) {
      const jobs = await queue.getJobs(state, start, start + this.pageSize - 1);
      if (jobs.length === 0) return;
      const fresh = jobs.filter((j) => !previous.has(j.id!));
      previous = new Set(jobs.map((j) => j.id!));
      if (fresh.length) yield fresh;
    }
  }

  /** True if removed; false if locked (it became active) or BullMQ refused (a scheduler's job). */
  private async remove(queue: Queue, job: Job): Promise<boolean> {
    try {
      return (await queue.remove(job.id!)) === 1;
    } catch (err) {
      this.logger.warn({ err, queue: queue.name, jobId: job.id }, 'could not remove a job of a tenant being deleted');
      return false;
    }
  }
}

/** The states of `states` that hold jobs: one O(1) call per queue spares walking empty ones. */
async function nonEmpty<S extends WalkedState>(queue: Queue, states: readonly S[]): Promise<S[]> {
  const counts = await queue.getJobCounts(...states);
  return states.filter((s) => (counts[s] ?? 0) > 0);
}

function tenantOf(job: Job): Tenant | undefined {
  const t = (job.data as { tenant?: unknown } | null | undefined)?.tenant;
  return isTenant(t) ? t : undefined;
}

function owned(job: Job, tenant: Tenant): boolean {
  return tenantCovers(tenant, tenantOf(job));
}

function toRecord(queue: string, state: WalkedState, tenant: Tenant, job: Job): QueuedJobRecord {
  return { queue, jobId: String(job.id), state, name: job.name, tenant, data: job.data as unknown, timestamp: job.timestamp };
}
