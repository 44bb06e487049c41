import { z } from 'zod';
import type { JobCatalog } from '../jobs/job-catalog';
import { previewCron, type CronProblemField } from './cron-preview';

export interface ScheduleSpec {
  pattern: string;
  tz: string;
  data: Record<string, unknown>;
}

export type SpecCheck =
  | { ok: true; pattern: string; tz: string; payload: unknown }
  | { ok: false; code: 'INVALID_SCHEDULE' | 'VALIDATION'; field: CronProblemField | 'data'; reason: string };

/**
 * Everything a schedule must satisfy before it is stored or handed to BullMQ: a valid
 * 6-field pattern, a known time zone, at least one fire time after `now`, and data
 * that the job type's schema accepts (the runtime would refuse it otherwise).
 */
export function checkSpec(jobs: JobCatalog, type: string, spec: ScheduleSpec, now: number): SpecCheck {
  const preview = previewCron({ pattern: spec.pattern, tz: spec.tz, now, count: 1 });
  if (!preview.ok) return { ok: false, code: 'INVALID_SCHEDULE', field: preview.field, reason: preview.reason };
  if (!jobs.has(type)) return { ok: false, code: 'VALIDATION', field: 'data', reason: `unknown job type "${type}"` };
  const payload = jobs.get(type).schema.safeParse(spec.data);
  if (!payload.success) {
    return { ok: false, code: 'VALIDATION', field: 'data', reason: `invalid ${type} data: ${z.prettifyError(payload.error)}` };
  }
  return { ok: true, pattern: preview.pattern, tz: preview.tz, payload: payload.data };
}
