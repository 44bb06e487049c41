import { z } from 'zod';
import { AppError } from '../errors/app-error';
import type { JobCatalog } from '../jobs/job-catalog';
import { checkSpec } from './check-spec';

/**
 * A schedule's name is its BullMQ Job Scheduler id and part of its jobs' ids
 * (`repeat:<name>:<millis>`), which BullMQ splits on colons: so no colons, and a
 * shape that reads well in a URL.
 */
export const scheduleNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and - only, starting with a letter or digit');

/** A schedule as the code defines it: the default an operator's override sits on. */
export interface ScheduleDefinition {
  name: string;
  jobType: string;
  /** Six fields, seconds first, e.g. `0 0 3 * * *` (daily at 03:00). */
  pattern: string;
  /** IANA time zone the pattern is read in. */
  tz: string;
  /** The job's payload input; validated against the job type's schema. */
  data: Record<string, unknown>;
  description: string;
}

/** What an operator may change (everything else comes from the code). */
export const scheduleEditSchema = z
  .object({
    pattern: z.string().max(500).optional(),
    tz: z.string().max(100).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((e) => e.pattern !== undefined || e.tz !== undefined || e.data !== undefined, {
    message: 'give pattern, tz or data to change',
  });
export type ScheduleEdit = z.input<typeof scheduleEditSchema>;

/** Who did it, as the audit log records it. */
export const actorSchema = z.string().trim().min(1, 'an actor is required').max(200);

export function parseActor(by: string): string {
  const parsed = actorSchema.safeParse(by);
  if (!parsed.success) throw new AppError('VALIDATION', `Invalid actor: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Refuses bad definitions at construction, naming the schedule and the rule; returns them by name, normalised. */
export function validateDefinitions(
  jobs: JobCatalog,
  defs: readonly ScheduleDefinition[],
  now: number,
): ReadonlyMap<string, ScheduleDefinition> {
  const byName = new Map<string, ScheduleDefinition>();
  for (const def of defs) {
    const name = scheduleNameSchema.safeParse(def.name);
    if (!name.success) throw new Error(`Schedule name "${def.name}": ${z.prettifyError(name.error)}`);
    if (byName.has(def.name)) throw new Error(`Schedule "${def.name}" is defined twice`);
    if (!jobs.has(def.jobType)) throw new Error(`Schedule "${def.name}": unknown job type "${def.jobType}"`);
    const check = checkSpec(jobs, def.jobType, def, now);
    if (!check.ok) throw new Error(`Schedule "${def.name}": ${check.reason}`);
    byName.set(def.name, { ...def, pattern: check.pattern, tz: check.tz });
  }
  return byName;
}
