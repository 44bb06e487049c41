import { AppError } from '../errors/app-error';
import type { JobCatalog } from '../jobs/job-catalog';
import { checkSpec } from './check-spec';
import type { ScheduleDefinition } from './schedule-definition';
import type { ScheduleOverride, StoredOverride } from './schedule-store';

/**
 * The pure half of each schedule mutation: from the stored override to the one to
 * store, plus what the audit entry says. `null` means "already so, nothing to do".
 * A refusal throws before anything is written.
 */
export type Change = { next: ScheduleOverride | undefined; details: Record<string, unknown> } | null;

export interface ChangeContext {
  jobs: JobCatalog;
  def: ScheduleDefinition;
  stored: StoredOverride | undefined;
  now: number;
  actor: string;
}

export interface ValidEdit {
  pattern?: string;
  tz?: string;
  data?: Record<string, unknown>;
}

/** Applies an edit on top of the current override; an unreadable override is replaced. */
export function editChange({ jobs, def, stored, now, actor }: ChangeContext, edit: ValidEdit): Change {
  const base = stored?.ok ? stored.value : undefined;
  const next: ScheduleOverride = {
    ...base,
    ...(edit.pattern !== undefined ? { pattern: edit.pattern } : {}),
    ...(edit.tz !== undefined ? { tz: edit.tz } : {}),
    ...(edit.data !== undefined ? { data: edit.data } : {}),
    updatedAt: now,
    updatedBy: actor,
  };
  const check = checkSpec(
    jobs,
    def.jobType,
    { pattern: next.pattern ?? def.pattern, tz: next.tz ?? def.tz, data: next.data ?? def.data },
    now,
  );
  if (!check.ok) {
    throw new AppError(check.code, `Schedule "${def.name}" was not changed: ${check.reason}`, { field: check.field, reason: check.reason });
  }
  // Store what BullMQ will be given (normalised whitespace), so the two compare equal.
  if (edit.pattern !== undefined) next.pattern = check.pattern;
  if (edit.tz !== undefined) next.tz = check.tz;
  const before = { pattern: base?.pattern ?? def.pattern, tz: base?.tz ?? def.tz };
  return {
    next,
    details: {
      ...(edit.pattern !== undefined ? { pattern: { from: before.pattern, to: check.pattern } } : {}),
      ...(edit.tz !== undefined ? { tz: { from: before.tz, to: check.tz } } : {}),
      // Field names only: the audit log never holds whole payloads.
      ...(edit.data !== undefined ? { dataFields: Object.keys(edit.data) } : {}),
      ...(stored && !stored.ok ? { replacedUnreadableOverride: true } : {}),
    },
  };
}

export function pauseChange({ def, stored, now, actor }: ChangeContext): Change {
  const base = readable(def.name, stored);
  if (base?.paused) return null;
  return { next: { ...base, paused: true, updatedAt: now, updatedBy: actor }, details: {} };
}

export function resumeChange({ def, stored, now, actor }: ChangeContext): Change {
  const base = readable(def.name, stored);
  if (!base?.paused) return null;
  const { paused: _paused, updatedAt: _at, updatedBy: _by, ...rest } = base;
  // Nothing but the pause was overridden: drop the override so the schedule follows the code again.
  const overridesMore = rest.pattern !== undefined || rest.tz !== undefined || rest.data !== undefined;
  return { next: overridesMore ? { ...rest, updatedAt: now, updatedBy: actor } : undefined, details: {} };
}

export function resetChange({ stored }: ChangeContext): Change {
  if (!stored) return null;
  const previous = stored.ok ? { pattern: stored.value.pattern, tz: stored.value.tz, paused: stored.value.paused } : 'unreadable';
  return { next: undefined, details: { previous } };
}

/** Pause and resume build on the stored override, so an unreadable one must be fixed first. */
function readable(name: string, stored: StoredOverride | undefined): ScheduleOverride | undefined {
  if (stored && !stored.ok) {
    throw new AppError('INVALID_SCHEDULE', `Schedule "${name}": ${stored.reason}; edit or reset it first`, { name });
  }
  return stored?.value;
}
