import type { Tenant } from '@/lib/jobs/tenant';
import { silentLogger, type Logger } from '@/lib/logging/logger';
import type { RuntimeHooks } from '@/lib/runtime/runtime-hooks';
import { tenantCovers } from '@/lib/jobs/tenant-key';
import type { JobUsage, UsageStore } from './usage-store';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Job types that are not usage. A data-deletion job names the tenant it erases; counting
 * it would write a usage counter for that tenant right after its deletion.
 */
const NOT_COUNTED: ReadonlySet<string> = new Set<string>(['data-deletion']);

export interface JobUsageRecorderOptions {
  usage: UsageStore;
  /**
   * How often the counts are written. A process that dies loses at most this much
   * usage: it measures a quota, it is not a bill.
   * @defaultValue 5000
   */
  flushIntervalMs?: number;
  logger?: Logger;
  /** The clock that decides a job's UTC day (tests pass one). @defaultValue Date.now */
  now?: () => number;
}

/** Jobs per organisation, then per workspace ('' is the organisation itself). */
type DayCounts = Map<string, Map<string, number>>;

/**
 * Feeds the `jobsPerDay` quota from the runtime's hooks without a Redis write per job:
 * a job that completes, or fails for good, adds one to its tenant's count of the day in
 * memory (a retried attempt adds nothing, so a job counts once), and every few seconds
 * the counts go to the UsageStore in one MULTI. Jobs without a tenant are not counted.
 */
export class JobUsageRecorder {
  /** Keyed by the start (epoch ms) of the UTC day. */
  private counts = new Map<number, DayCounts>();
  private dayStart = -1;
  private today?: DayCounts;
  private timer?: NodeJS.Timeout;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly opts: JobUsageRecorderOptions) {
    this.intervalMs = opts.flushIntervalMs ?? 5_000;
    if (!Number.isInteger(this.intervalMs) || this.intervalMs < 10) {
      throw new Error(`The usage flush interval must be an integer of at least 10 ms, got ${this.intervalMs}`);
    }
    this.now = opts.now ?? Date.now;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'job-usage' });
  }

  /**
   * Hooks for `WorkerPool({hooks})` that count jobs, passing every event on to `next`.
   * A data-deletion that starts also drops the counts held for its tenant: they would
   * otherwise land after the deletion and outlive it.
   */
  hooks(next?: RuntimeHooks): RuntimeHooks {
    return {
      onStart: (ctx) => {
        if (ctx.tenant && NOT_COUNTED.has(ctx.type)) this.forget(ctx.tenant);
        next?.onStart?.(ctx);
      },
      onProgress: (ctx) => next?.onProgress?.(ctx),
      onComplete: (ctx) => {
        if (ctx.tenant && !NOT_COUNTED.has(ctx.type)) this.count(ctx.tenant);
        next?.onComplete?.(ctx);
      },
      onFailed: (ctx) => {
        if (ctx.final && ctx.tenant && !NOT_COUNTED.has(ctx.type)) this.count(ctx.tenant);
        next?.onFailed?.(ctx);
      },
    };
  }

  /** Adds one job of `tenant` to today's (UTC) count. In memory only. */
  count(tenant: Tenant): void {
    const now = this.now();
    if (!this.today || now < this.dayStart || now >= this.dayStart + DAY_MS) this.switchDay(now);
    let org = this.today!.get(tenant.orgId);
    if (!org) {
      org = new Map();
      this.today!.set(tenant.orgId, org);
    }
    const ws = tenant.workspaceId ?? '';
    org.set(ws, (org.get(ws) ?? 0) + 1);
  }

  /** Jobs counted and not yet written. */
  get pending(): number {
    let n = 0;
    for (const day of this.counts.values()) for (const org of day.values()) for (const c of org.values()) n += c;
    return n;
  }

  /** Starts the periodic flush; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(noop), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Writes the counts so far in one MULTI and resolves with the number of jobs written.
   * Flushes run one after another; a failed one keeps its counts for the next.
   */
  flush(): Promise<number> {
    const run = this.chain.then(() => this.drain());
    this.chain = run.catch(noop);
    return run;
  }

  /** Stops the timer and writes what is left: call after the workers closed, before Redis does. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.flush();
    } catch {
      // drain() logged it with the number of jobs; there is no later flush to keep them for.
    }
  }

  private async drain(): Promise<number> {
    if (this.counts.size === 0) return 0;
    const taken = this.counts;
    this.counts = new Map();
    this.today = undefined;
    const items: JobUsage[] = [];
    let jobs = 0;
    for (const [at, day] of taken) {
      for (const [orgId, org] of day) {
        for (const [ws, count] of org) {
          items.push({ tenant: ws ? { orgId, workspaceId: ws } : { orgId }, count, at });
          jobs += count;
        }
      }
    }
    try {
      await this.opts.usage.recordJobsBatch(items);
      return jobs;
    } catch (err) {
      this.restore(taken);
      this.logger.warn({ err, jobs, stopping: !this.timer }, 'could not write job usage; kept for the next flush');
      throw err;
    }
  }

  /** Puts the counts of a failed flush back, added to what arrived meanwhile. */
  private restore(taken: Map<number, DayCounts>): void {
    for (const [at, day] of taken) {
      let mine = this.counts.get(at);
      if (!mine) {
        mine = new Map();
        this.counts.set(at, mine);
      }
      for (const [orgId, org] of day) {
        let m = mine.get(orgId);
        if (!m) {
          m = new Map();
          mine.set(orgId, m);
        }
        for (const [ws, count] of org) m.set(ws, (m.get(ws) ?? 0) + count);
      }
    }
    this.today = undefined;
  }

  /** Drops the held counts of a tenant (an organisation with its workspaces, or one workspace). */
  private forget(tenant: Tenant): void {
    for (const day of this.counts.values()) {
      const org = day.get(tenant.orgId);
      if (!org) continue;
      for (const ws of [...org.keys()]) {
        if (tenantCovers(tenant, ws ? { orgId: tenant.orgId, workspaceId: ws } : { orgId: tenant.orgId })) org.delete(ws);
      }
      if (org.size === 0) day.delete(tenant.orgId);
    }
  }

  private switchDay(now: number): void {
    this.dayStart = now - (now % DAY_MS);
    let day = this.counts.get(this.dayStart);
    if (!day) {
      day = new Map();
      this.counts.set(this.dayStart, day);
    }
    this.today = day;
  }
}

function noop(): void {}
