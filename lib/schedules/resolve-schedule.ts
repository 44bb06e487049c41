import type { JobCatalog } from '../jobs/job-catalog';
import { checkSpec } from './check-spec';
import type { ScheduleDefinition } from './schedule-definition';
import type { ScheduleOverride, StoredOverride } from './schedule-store';

/** Why a handled schedule may still be inactive: shown to operators as is. */
export const NO_HANDLER_REASON = 'no handler in this build';

/** A definition with its override applied: what BullMQ should run. */
export interface ResolvedSchedule {
  definition: ScheduleDefinition;
  /** The override in force (absent when none is stored or the stored one is unreadable). */
  override?: ScheduleOverride;
  /** Something is stored for this schedule, readable or not. */
  overridden: boolean;
  pattern: string;
  tz: string;
  /** The payload input (what an operator edits). */
  data: Record<string, unknown>;
  paused: boolean;
  /** What each job receives: `data` through the type's schema, defaults filled in. Absent when invalid. */
  payload?: unknown;
  /** True when the schedule can be handed to BullMQ (paused or not). */
  active: boolean;
  inactiveReason?: string;
}

/**
 * The override wins field by field over the code's default. A stored override that no
 * longer validates (say, a schema tightened in a deploy) makes the schedule inactive
 * with the reason rather than silently falling back, so the operator sees it.
 */
export function resolveSchedule(
  jobs: JobCatalog,
  def: ScheduleDefinition,
  stored: StoredOverride | undefined,
  handled: ReadonlySet<string>,
  now: number,
): ResolvedSchedule {
  const override = stored?.ok ? stored.value : undefined;
  const base = {
    definition: def,
    override,
    overridden: stored !== undefined,
    pattern: override?.pattern ?? def.pattern,
    tz: override?.tz ?? def.tz,
    data: override?.data ?? def.data,
    paused: override?.paused ?? false,
  };
  if (stored && !stored.ok) {
    return { ...base, active: false, inactiveReason: `${stored.reason}; edit or reset the schedule` };
  }
  const check = checkSpec(jobs, def.jobType, base, now);
  if (!check.ok) {
    const origin = override ? 'the stored override' : 'the code default';
    return { ...base, active: false, inactiveReason: `${origin} is invalid: ${check.reason}; edit or reset the schedule` };
  }
  const resolved = { ...base, pattern: check.pattern, tz: check.tz, payload: check.payload };
  if (!handled.has(def.jobType)) return { ...resolved, active: false, inactiveReason: NO_HANDLER_REASON };
  return { ...resolved, active: true };
}
