import 'server-only';
import { z } from 'zod';
import { checkPattern, checkTimezone, MAX_PATTERN_LENGTH, type CronProblemField } from '@/lib/schedules/cron-preview';
import { scheduleNameSchema, type ScheduleEdit } from '@/lib/schedules/schedule-definition';
import { parseJsonText } from '@/dashboard/client/dead-letters-payload';
import { FIELD_LABEL, sameJson, type ScheduleFormField } from '@/dashboard/client/schedules-view';

/**
 * The schedule edit form as pure functions: what the form posts, how it becomes the
 * smallest `ScheduleEdit` (only the fields that differ from the effective schedule, so
 * an untouched field keeps following the code's default), and how the service's
 * refusal maps back onto the form's fields.
 */

/** What the edit form posts (every field as typed; `data` is JSON text). */
export const scheduleFormSchema = z
  .object({
    name: scheduleNameSchema,
    pattern: z.string().max(MAX_PATTERN_LENGTH * 2),
    tz: z.string().max(100),
    data: z.string().max(64 * 1024, 'the data is longer than 64 KiB'),
  })
  .strict();
export type ScheduleFormInput = z.infer<typeof scheduleFormSchema>;

/** The part of a schedule the form edits. */
export interface ScheduleSpecView {
  pattern: string;
  tz: string;
  data: Record<string, unknown>;
}

export type FieldErrors = Partial<Record<ScheduleFormField, string[]>>;

export type FormToEdit =
  | { ok: true; edit: ScheduleEdit; changed: ScheduleFormField[] }
  | { ok: true; edit: null; changed: [] }
  | { ok: false; fieldErrors: FieldErrors; message: string };

/**
 * Form values → the edit to send, or field errors. Pattern and zone are checked and
 * normalised as the service will; the data must be a JSON object. Its schema check
 * stays with the service (it knows the job type and fills defaults).
 */
export function formToEdit(current: ScheduleSpecView, form: Omit<ScheduleFormInput, 'name'>): FormToEdit {
  const fieldErrors: FieldErrors = {};
  const pattern = checkPattern(form.pattern);
  if (!pattern.ok) fieldErrors.pattern = [pattern.reason];
  const tz = checkTimezone(form.tz);
  if (!tz.ok) fieldErrors.tz = [tz.reason];
  const json = parseJsonText(form.data);
  let data: Record<string, unknown> | undefined;
  if (!json.ok) fieldErrors.data = [json.message];
  else if (!isPlainObject(json.value)) fieldErrors.data = ['the data must be a JSON object, e.g. {} or {"maxAgeMs": 86400000}'];
  else data = json.value;

  if (!pattern.ok || !tz.ok || !data) {
    const message = Object.entries(fieldErrors)
      .map(([f, errs]) => `${FIELD_LABEL[f as ScheduleFormField]}: ${errs?.join('; ')}`)
      .join(' · ');
    return { ok: false, fieldErrors, message };
  }
  const edit: ScheduleEdit = {};
  const changed: ScheduleFormField[] = [];
  if (pattern.pattern !== current.pattern) {
    edit.pattern = pattern.pattern;
    changed.push('pattern');
  }
  if (tz.tz !== current.tz) {
    edit.tz = tz.tz;
    changed.push('tz');
  }
  if (!sameJson(data, current.data)) {
    edit.data = data;
    changed.push('data');
  }
  return changed.length ? { ok: true, edit, changed } : { ok: true, edit: null, changed: [] };
}

/** The form field a service refusal points at (`seconds` → pattern, `timezone` → tz). */
export function formFieldOf(field: CronProblemField | 'data' | string | undefined): ScheduleFormField {
  if (field === 'timezone') return 'tz';
  if (field === 'data') return 'data';
  return 'pattern';
}

/** The form's starting values for a schedule. */
export function formValuesOf(spec: ScheduleSpecView): Omit<ScheduleFormInput, 'name'> {
  return { pattern: spec.pattern, tz: spec.tz, data: JSON.stringify(spec.data, null, 2) };
}

/** Query-string for the preview endpoint (GET, so nothing changes). */
export const previewQuerySchema = z.object({
  pattern: z.string().max(MAX_PATTERN_LENGTH * 2),
  tz: z.string().max(100).default('UTC'),
});

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
