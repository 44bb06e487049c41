import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log';
import { AppError } from '../errors/app-error';
import type { JobEnvelope } from '../jobs/envelope';
import type { QueueRegistry } from '../jobs/queues';
import type { Logger } from '../logging/logger';
import { readyClient, type RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import type { RuntimeHooks } from '../runtime/runtime-hooks';
import { previewCron, type CronPreview } from './cron-preview';
import { JobSchedulerSync, schedulerKey, type ApplyAction } from './job-scheduler-sync';
import { resolveSchedule, type ResolvedSchedule } from './resolve-schedule';
import { scheduleRunHooks } from './run-hooks';
import { manualRunJobId, refineLastRun, ScheduleRunLog, type LastRun } from './run-log';
import { editChange, pauseChange, resetChange, resumeChange, type Change, type ChangeContext } from './schedule-changes';
import { parseActor, scheduleEditSchema, validateDefinitions, type ScheduleDefinition, type ScheduleEdit } from './schedule-definition';
import { Lease } from '../redis/lease';
import { ScheduleOverrideStore } from './schedule-store';
import { toSummary, type ScheduleSummary } from './schedule-summary';

/** The parts of the composition root the schedules use (a `Bullpen` fits). */
export interface ScheduleServiceDeps {
  redis: RedisClient;
  keys: Keyspace;
  queues: QueueRegistry;
  audit: AuditLog;
  logger: Logger;
}

export interface ScheduleServiceOptions {
  /** The schedules the application defines. @defaultValue none */
  definitions?: readonly ScheduleDefinition[];
  /** Job types with a handler in this build; the others' schedules stay inactive. @defaultValue the table's handled types */
  handledTypes?: Iterable<string>;
  /** Lifetime of the schedule lock should its holder die. @defaultValue 30000 */
  lockTtlMs?: number;
  /** How long a change waits for another instance's lock before answering CONFLICT. @defaultValue 5000 */
  lockWaitMs?: number;
  /** The clock (tests). @defaultValue Date.now */
  clock?: () => number;
}

export type BootstrapAction = ApplyAction | 'removed' | 'none' | 'failed';

export interface BootstrapReport {
  /** False when another instance held the lock: it is applying the same stored state. */
  applied: boolean;
  schedules: Array<{ name: string; jobType: string; action: BootstrapAction; reason?: string }>;
  /** Schedulers of ours that no definition keeps any more (renamed, moved, removed). */
  removedStale: Array<{ name: string; jobType: string }>;
}

type AuditAction = 'schedule.edit' | 'schedule.pause' | 'schedule.resume' | 'schedule.reset';

/**
 * Cron schedules on BullMQ Job Schedulers. Defaults live in code; an operator's
 * override (pattern, tz, paused, data) is stored in Redis and wins at every boot. Every
 * change to BullMQ's schedulers happens under one Redis lock, and a change that fails
 * validation leaves both the override and BullMQ untouched.
 */
export class ScheduleService {
  private readonly definitions: ReadonlyMap<string, ScheduleDefinition>;
  private readonly handled: ReadonlySet<string>;
  private readonly store: ScheduleOverrideStore;
  private readonly runs: ScheduleRunLog;
  /** One instance at a time applies the Job Schedulers (docs/decisions/0004-schedules.md). */
  private readonly lock: Lease;
  private readonly sync: JobSchedulerSync;
  private readonly clock: () => number;
  private readonly lockWaitMs: number;

  constructor(
    private readonly deps: ScheduleServiceDeps,
    opts: ScheduleServiceOptions = {},
  ) {
    this.clock = opts.clock ?? Date.now;
    this.handled = new Set(opts.handledTypes ?? deps.queues.jobs.handled);
    this.definitions = validateDefinitions(deps.queues.jobs, opts.definitions ?? [], this.clock());
    this.lockWaitMs = opts.lockWaitMs ?? 5_000;
    this.store = new ScheduleOverrideStore(deps.redis, deps.keys);
    this.runs = new ScheduleRunLog(deps.redis, deps.keys);
    this.lock = new Lease(deps.redis, deps.keys.tagged('schedules', 'lock'), { ttlMs: opts.lockTtlMs });
    this.sync = new JobSchedulerSync(deps.queues);
  }

  /** Every schedule with its effective state, next fire times and last run. */
  async list(now = this.clock()): Promise<ScheduleSummary[]> {
    await this.ready();
    const [overrides, runs] = await Promise.all([this.store.all(), this.runs.all()]);
    return Promise.all(
      [...this.definitions.values()].map(async (def) => {
        const resolved = resolveSchedule(this.deps.queues.jobs, def, overrides.get(def.name), this.handled, now);
        return toSummary(resolved, await this.lastRun(def, runs.get(def.name)), now);
      }),
    );
  }

  async get(name: string, now = this.clock()): Promise<ScheduleSummary> {
    const def = this.require(name);
    await this.ready();
    const [{ stored }, run] = await Promise.all([this.store.read(name), this.runs.get(name)]);
    return toSummary(resolveSchedule(this.deps.queues.jobs, def, stored, this.handled, now), await this.lastRun(def, run), now);
  }

  /** Pure: validates a pattern and zone and shows the next fire times (for an edit form). */
  preview(pattern: string, tz: string, now = this.clock(), count = 5): CronPreview {
    return previewCron({ pattern, tz, now, count });
  }

  /**
   * Changes pattern, time zone and/or data. The result must be a valid 6-field pattern,
   * a known zone and data the job type's schema accepts; otherwise AppError
   * INVALID_SCHEDULE (cron, zone) or VALIDATION (data) with the reason, and nothing
   * changes. `data` replaces the schedule's data as a whole.
   */
  async edit(name: string, changes: ScheduleEdit, by: string): Promise<ScheduleSummary> {
    const parsed = scheduleEditSchema.safeParse(changes);
    if (!parsed.success) {
      throw new AppError('VALIDATION', `Invalid schedule edit: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
    }
    return this.mutate(name, by, 'schedule.edit', (ctx) => editChange(ctx, parsed.data));
  }

  /** Stops the schedule (BullMQ's scheduler and its pending job are removed) until resumed. */
  async pause(name: string, by: string): Promise<ScheduleSummary> {
    return this.mutate(name, by, 'schedule.pause', pauseChange);
  }

  /** Puts the schedule back in BullMQ; the first run is its next fire time. */
  async resume(name: string, by: string): Promise<ScheduleSummary> {
    return this.mutate(name, by, 'schedule.resume', resumeChange);
  }

  /** Drops the override: the code's pattern, zone and data apply again, unpaused. */
  async resetToDefault(name: string, by: string): Promise<ScheduleSummary> {
    return this.mutate(name, by, 'schedule.reset', resetChange);
  }

  /**
   * Enqueues one run now with the schedule's effective data, whether or not it is
   * paused; the job's envelope names the schedule. Returns the job id.
   */
  async triggerNow(name: string, by: string): Promise<string> {
    const def = this.require(name);
    const actor = parseActor(by);
    await this.ready();
    const now = this.clock();
    const { stored } = await this.store.read(name);
    const resolved = resolveSchedule(this.deps.queues.jobs, def, stored, this.handled, now);
    if (!this.handled.has(def.jobType)) {
      throw new AppError('NO_HANDLER', `Schedule "${name}" runs ${def.jobType}, which has no handler in this build`, { name });
    }
    if (!resolved.active) {
      throw new AppError('INVALID_SCHEDULE', `Schedule "${name}" cannot run: ${resolved.inactiveReason}`, { name });
    }
    const jobId = manualRunJobId(name, now);
    const envelope: JobEnvelope = { payload: resolved.payload, requestId: randomUUID(), dispatchedAt: now, schedule: name };
    const job = await this.deps.queues.get(def.jobType).add(def.jobType, envelope, { jobId });
    const id = job.id ?? jobId;
    await this.runs.record(name, { jobId: id, at: now, outcome: 'waiting', trigger: 'manual' });
    await this.deps.audit.append({ actor, action: 'schedule.trigger', target: { kind: 'schedule', id: name }, details: { jobId: id } });
    return id;
  }

  /**
   * Applies every schedule's effective state to BullMQ: upserts the active ones (skipped
   * when BullMQ already has the same state, so a restart keeps the next run), removes
   * paused and inactive ones, and sweeps our schedulers no definition keeps. Under the
   * lock; an instance that cannot take it at once skips, since the holder is applying
   * the same stored state.
   */
  async bootstrap(): Promise<BootstrapReport> {
    const report = await this.applyAll();
    // One line either way, `applied` saying which: the holder is applying the same stored state.
    const schedules = report.applied ? report.schedules.map((x) => `${x.name}:${x.action}`) : 'another instance holds the schedule lock';
    this.deps.logger.info({ applied: report.applied, schedules, removedStale: report.removedStale }, 'schedules applied');
    return report;
  }

  /**
   * `bootstrap` again, run periodically by the worker (`SCHEDULE_REPAIR_INTERVAL_MS`):
   * BullMQ drops a scheduler's next run when writing it fails, and a Redis Cluster
   * failover can lose the write of the last moments (docs/scaling.md, "Failover"), so a
   * schedule could stop without a word until the next worker start. A schedule in order
   * is left alone ("unchanged"); one whose next run was missing is put back and named in
   * a warning.
   */
  async repair(): Promise<BootstrapReport> {
    const report = await this.applyAll();
    const repaired = report.schedules.filter((s) => s.action !== 'unchanged' && s.action !== 'none');
    if (repaired.length > 0 || report.removedStale.length > 0) {
      this.deps.logger.warn({ repaired, removedStale: report.removedStale }, 'schedules repaired: BullMQ did not hold their state');
    }
    return report;
  }

  private async applyAll(): Promise<BootstrapReport> {
    await this.ready();
    const outcome = await this.lock.run(randomUUID(), 0, async () => {
      const now = this.clock();
      const overrides = await this.store.all();
      const keep = new Set<string>();
      const schedules: BootstrapReport['schedules'] = [];
      for (const def of this.definitions.values()) {
        const resolved = resolveSchedule(this.deps.queues.jobs, def, overrides.get(def.name), this.handled, now);
        if (resolved.active && !resolved.paused) keep.add(schedulerKey(def.jobType, def.name));
        try {
          const action = await this.apply(resolved, now);
          schedules.push({ name: def.name, jobType: def.jobType, action, reason: resolved.inactiveReason });
        } catch (err) {
          // One schedule BullMQ refuses must not keep the others from running.
          this.deps.logger.error({ err, schedule: def.name }, 'could not apply a schedule');
          schedules.push({ name: def.name, jobType: def.jobType, action: 'failed', reason: (err as Error).message });
        }
      }
      const removedStale = await this.sync.sweep(keep);
      return { applied: true, schedules, removedStale } satisfies BootstrapReport;
    });
    return outcome.acquired ? outcome.value : { applied: false, schedules: [], removedStale: [] };
  }

  /** Hooks for `WorkerPool({hooks})` that record each schedule's last run; `next` gets every event too. */
  runHooks(next?: RuntimeHooks): RuntimeHooks {
    return scheduleRunHooks({ log: this.runs, names: new Set(this.definitions.keys()), logger: this.deps.logger, next });
  }

  private async mutate(name: string, by: string, action: AuditAction, compute: (ctx: ChangeContext) => Change): Promise<ScheduleSummary> {
    const def = this.require(name);
    const actor = parseActor(by);
    await this.ready();
    const outcome = await this.lock.run(randomUUID(), this.lockWaitMs, async () => {
      const now = this.clock();
      const { raw, stored } = await this.store.read(name);
      const change = compute({ jobs: this.deps.queues.jobs, def, stored, now, actor });
      if (!change) return;
      await this.store.put(name, change.next);
      try {
        await this.apply(
          resolveSchedule(this.deps.queues.jobs, def, change.next && { ok: true, value: change.next }, this.handled, now),
          now,
        );
      } catch (err) {
        // BullMQ's scripts are atomic, so it is unchanged: put the override back to match.
        await this.store.putRaw(name, raw);
        throw err;
      }
      await this.deps.audit.append({ actor, action, target: { kind: 'schedule', id: name }, details: change.details });
    });
    if (!outcome.acquired) {
      throw new AppError('CONFLICT', `Schedules are being changed by another instance; "${name}" was not changed, try again`, { name });
    }
    return this.get(name);
  }

  private async apply(r: ResolvedSchedule, now: number): Promise<BootstrapAction> {
    const def = r.definition;
    if (r.active && !r.paused) {
      return this.sync.apply({ name: def.name, jobType: def.jobType, pattern: r.pattern, tz: r.tz, payload: r.payload, appliedAt: now });
    }
    return (await this.sync.remove(def.name, def.jobType)) ? 'removed' : 'none';
  }

  private async lastRun(def: ScheduleDefinition, run: LastRun | undefined): Promise<LastRun | undefined> {
    if (!run) return undefined;
    try {
      return await refineLastRun(run, this.deps.queues.get(def.jobType));
    } catch (err) {
      this.deps.logger.debug({ err, schedule: def.name }, 'could not read the last run’s job state');
      return run;
    }
  }

  private require(name: string): ScheduleDefinition {
    const def = this.definitions.get(name);
    if (!def) throw new AppError('NOT_FOUND', `No schedule named "${name}"`, { name });
    return def;
  }

  private async ready(): Promise<void> {
    await readyClient(this.deps.redis, 5_000);
  }
}
