import type { JobSchedulerJson } from 'bullmq';
import type { JobEnvelope } from '../jobs/envelope';
import type { QueueRegistry } from '../jobs/queues';

/** What one schedule should look like in BullMQ. */
export interface SchedulerSpec {
  name: string;
  jobType: string;
  pattern: string;
  tz: string;
  payload: unknown;
  /** When this state was applied; stamped into the template envelope. */
  appliedAt: number;
}

export type ApplyAction = 'created' | 'updated' | 'unchanged';

/** A Job Scheduler as BullMQ holds it, mapped to plain data. */
export interface SchedulerState {
  pattern?: string;
  tz?: string;
  /** Epoch ms of the pending job, or null when BullMQ has none. */
  next: number | null;
  envelope?: Partial<JobEnvelope>;
}

/** States in which the scheduler's pending job will still run (and create the next one). */
const PENDING_STATES = new Set(['delayed', 'waiting', 'prioritized', 'active', 'waiting-children']);

/** Most schedulers read per queue by the stale-scheduler sweep. */
const SWEEP_PAGE = 1_000;

/**
 * The BullMQ side of schedules: one Job Scheduler per schedule, id = schedule name, on
 * the queue of its job type. Callers hold the schedule lock; this class only talks to
 * BullMQ.
 */
export class JobSchedulerSync {
  constructor(private readonly queues: QueueRegistry) {}

  /**
   * Upserts the scheduler unless BullMQ already has this very state with a live
   * pending job: an upsert replaces the pending job, so skipping it keeps restarts
   * from disturbing the next run. No `immediately`: a new or changed schedule waits
   * for its next fire time (a daily 03:00 job must not run at every deploy);
   * `triggerNow` is the way to run one at once.
   */
  async apply(spec: SchedulerSpec): Promise<ApplyAction> {
    const queue = this.queues.get(spec.jobType);
    const current = await queue.getJobScheduler(spec.name);
    if (current && this.matches(current, spec) && (await this.hasPendingJob(spec, current))) return 'unchanged';
    await queue.upsertJobScheduler(
      spec.name,
      { pattern: spec.pattern, tz: spec.tz },
      { name: spec.jobType, data: scheduledEnvelope(spec) },
    );
    return current ? 'updated' : 'created';
  }

  /** Removes the scheduler and its pending job; true when there was one. */
  async remove(name: string, type: string): Promise<boolean> {
    return this.queues.get(type).removeJobScheduler(name);
  }

  async read(name: string, type: string): Promise<SchedulerState | undefined> {
    const s = await this.queues.get(type).getJobScheduler(name);
    if (!s) return undefined;
    return { pattern: s.pattern, tz: s.tz, next: s.next ?? null, envelope: s.template?.data as Partial<JobEnvelope> | undefined };
  }

  /**
   * Removes schedulers this module created (their template envelope names them as
   * its schedule) that `keep` does not list as `<type>/<name>`: a schedule dropped
   * from the code, moved to another job type, paused, or without a handler. Other
   * code's schedulers are left alone.
   */
  async sweep(keep: ReadonlySet<string>): Promise<Array<{ name: string; jobType: string }>> {
    const removed: Array<{ name: string; jobType: string }> = [];
    for (const type of this.queues.jobs.names) {
      const queue = this.queues.get(type);
      const schedulers = await queue.getJobSchedulers(0, SWEEP_PAGE - 1, true);
      for (const s of schedulers) {
        const ours = (s.template?.data as Partial<JobEnvelope> | undefined)?.schedule === s.key;
        if (ours && !keep.has(schedulerKey(type, s.key)) && (await queue.removeJobScheduler(s.key))) {
          removed.push({ name: s.key, jobType: type });
        }
      }
    }
    return removed;
  }

  private matches(current: JobSchedulerJson, spec: SchedulerSpec): boolean {
    const envelope = current.template?.data as Partial<JobEnvelope> | undefined;
    return (
      current.name === spec.jobType &&
      current.pattern === spec.pattern &&
      current.tz === spec.tz &&
      !current.every &&
      envelope?.schedule === spec.name &&
      stableJson(envelope.payload) === stableJson(spec.payload) &&
      // The table's retry and retention defaults live in the template too; a
      // deploy that changes them must reach the scheduled jobs.
      stableJson(current.template?.opts ?? {}) === stableJson(this.queues.defaultJobOptions(spec.jobType))
    );
  }

  private async hasPendingJob(spec: SchedulerSpec, current: JobSchedulerJson): Promise<boolean> {
    if (!current.next) return false;
    const state = await this.queues.get(spec.jobType).getJobState(`repeat:${spec.name}:${current.next}`);
    return PENDING_STATES.has(state);
  }
}

/** The key `sweep` expects for a schedule that must stay. */
export function schedulerKey(type: string, name: string): string {
  return `${type}/${name}`;
}

/**
 * The job data every run of a schedule carries: a valid envelope naming the schedule.
 * The request id is the schedule's, so the logs of all its runs group together.
 */
export function scheduledEnvelope(spec: Pick<SchedulerSpec, 'name' | 'payload' | 'appliedAt'>): JobEnvelope {
  return { payload: spec.payload, requestId: `schedule:${spec.name}`, dispatchedAt: spec.appliedAt, schedule: spec.name };
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}
