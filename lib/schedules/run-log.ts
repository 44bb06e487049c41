import { LUA } from './lua';
import { LuaCommand } from '../redis/lua-command';
import type { Queue } from 'bullmq';
import { z } from 'zod';

import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';

export const LAST_RUN_OUTCOMES = ['completed', 'failed', 'active', 'waiting'] as const;
export type LastRunOutcome = (typeof LAST_RUN_OUTCOMES)[number];

export const lastRunSchema = z.object({
  jobId: z.string().min(1),
  /** The occurrence: the fire time of a scheduled run, the enqueue time of a manual one. */
  at: z.number().int(),
  outcome: z.enum(LAST_RUN_OUTCOMES),
  /** The error of a failed run, or of a failed attempt awaiting its retry. */
  reason: z.string().optional(),
  trigger: z.enum(['schedule', 'manual']),
});
export type LastRun = z.infer<typeof lastRunSchema>;

/**
 * Job ids of schedule runs: BullMQ names a scheduler's jobs `repeat:<schedulerId>:<millis>`
 * (job-scheduler.js, `getSchedulerNextJobId`), and `triggerNow` uses the same shape
 * with `manual:` so both lead back to their schedule from the id alone.
 */
const RUN_ID = /^(repeat|manual):([^:]+):(\d+)$/;

export function parseRunJobId(jobId: string): { name: string; at: number; trigger: LastRun['trigger'] } | undefined {
  const m = RUN_ID.exec(jobId);
  if (!m) return undefined;
  return { name: m[2], at: Number(m[3]), trigger: m[1] === 'repeat' ? 'schedule' : 'manual' };
}

export function manualRunJobId(name: string, at: number): string {
  return `manual:${name}:${at}`;
}

/** Keeps the newest occurrence: an older run's late completion cannot hide a newer run. */
const RECORD = new LuaCommand('schedule-run-record', LUA['schedule-run-record']);

/** Longest error text kept per schedule. */
const MAX_REASON = 500;

/**
 * The last run of each schedule, one small hash field per schedule. Written by the
 * runtime's hooks as a run starts, completes or fails (see `scheduleRunHooks`) and by
 * `triggerNow`; read with one HGETALL. Our own record rather than a look through
 * BullMQ's sets: nothing in BullMQ links a scheduler to its previous job, and finding
 * it there would mean scanning the completed and failed sets.
 */
export class ScheduleRunLog {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
  ) {
    this.key = keys.tagged('schedules', 'last-run');
  }

  /** Stores `run` unless a newer occurrence is already recorded; true when stored. */
  async record(name: string, run: LastRun): Promise<boolean> {
    const value = lastRunSchema.parse({ ...run, reason: run.reason?.slice(0, MAX_REASON) });
    return Number(await RECORD.run(this.redis, [this.key], [name, JSON.stringify(value), value.at])) === 1;
  }

  async all(): Promise<Map<string, LastRun>> {
    const raw = await this.redis.hgetall(this.key);
    const runs = new Map<string, LastRun>();
    for (const [name, json] of Object.entries(raw)) {
      const parsed = lastRunSchema.safeParse(safeJson(json));
      if (parsed.success) runs.set(name, parsed.data);
    }
    return runs;
  }

  async get(name: string): Promise<LastRun | undefined> {
    const json = await this.redis.hget(this.key, name);
    if (json === null) return undefined;
    const parsed = lastRunSchema.safeParse(safeJson(json));
    return parsed.success ? parsed.data : undefined;
  }
}

/**
 * A recorded `active` or `waiting` run may have moved on without a hook seeing it (a
 * process killed mid-run, a job failed by the stalled check, a worker without the
 * hooks). BullMQ's own state of that one job settles it: a few ZSCOREs, and an LPOS
 * on the short active list. A job already removed by retention keeps its record.
 */
export async function refineLastRun(run: LastRun, queue: Queue): Promise<LastRun> {
  if (run.outcome === 'completed' || run.outcome === 'failed') return run;
  const state = await queue.getJobState(run.jobId);
  if (state === 'completed') return { ...run, outcome: 'completed', reason: undefined };
  if (state === 'failed') {
    const job = await queue.getJob(run.jobId);
    return { ...run, outcome: 'failed', reason: job?.failedReason?.slice(0, MAX_REASON) ?? run.reason };
  }
  if (state === 'active') return { ...run, outcome: 'active' };
  if (state === 'unknown') return run;
  return { ...run, outcome: 'waiting' };
}

function safeJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
