import { z } from 'zod';
import { describePattern, previewCron } from './cron-preview';
import type { ResolvedSchedule } from './resolve-schedule';
import { lastRunSchema, type LastRun } from './run-log';

/** How many upcoming fire times a summary shows. */
export const SUMMARY_NEXT_RUNS = 5;

const specSchema = z.object({
  pattern: z.string(),
  tz: z.string(),
  data: z.record(z.string(), z.unknown()),
});

/** A schedule as the dashboard and the CLI see it: plain data, no BullMQ objects. */
export const scheduleSummarySchema = specSchema.extend({
  name: z.string(),
  jobType: z.string(),
  description: z.string(),
  /** The effective pattern in plain words, e.g. `Every 15 minutes`. */
  patternText: z.string(),
  /** What each run receives: `data` with the type's defaults filled in (absent when invalid). */
  payload: z.unknown().optional(),
  paused: z.boolean(),
  /** An operator's override exists (it wins over the code's default at every boot). */
  edited: z.boolean(),
  editedAt: z.number().int().optional(),
  editedBy: z.string().optional(),
  /** The code's default, for comparison and for "reset to default"; its pattern in words too. */
  defaults: specSchema.extend({ patternText: z.string() }),
  /** Upcoming fire times, epoch ms; empty while paused or inactive (nothing will fire). */
  nextRuns: z.array(z.number().int()),
  lastRun: lastRunSchema.optional(),
  /** True when the schedule is handed to BullMQ (unless paused). */
  active: z.boolean(),
  inactiveReason: z.string().optional(),
});
export type ScheduleSummary = z.infer<typeof scheduleSummarySchema>;

/** Pure: a resolved schedule and its last run as a summary, fire times counted from `now`. */
export function toSummary(r: ResolvedSchedule, lastRun: LastRun | undefined, now: number): ScheduleSummary {
  const def = r.definition;
  const preview = r.active && !r.paused ? previewCron({ pattern: r.pattern, tz: r.tz, now, count: SUMMARY_NEXT_RUNS }) : undefined;
  return {
    name: def.name,
    jobType: def.jobType,
    description: def.description,
    pattern: r.pattern,
    tz: r.tz,
    patternText: describePattern(r.pattern),
    data: r.data,
    payload: r.payload,
    paused: r.paused,
    edited: r.overridden,
    editedAt: r.override?.updatedAt,
    editedBy: r.override?.updatedBy,
    defaults: { pattern: def.pattern, tz: def.tz, data: def.data, patternText: describePattern(def.pattern) },
    nextRuns: preview?.ok ? preview.nextRuns : [],
    lastRun,
    active: r.active,
    inactiveReason: r.inactiveReason,
  };
}
