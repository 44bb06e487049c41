import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';

/**
 * Pure presentation of schedules (no cron library, so client components can import it): fire times in the schedule's own zone, what an
 * operator changed against the code's default, and a state word for the pill. The
 * clock and the zone are arguments, so the same input always renders the same text.
 */

/** The fields of the schedule edit form. */
export const SCHEDULE_FORM_FIELDS = ['pattern', 'tz', 'data'] as const;
export type ScheduleFormField = (typeof SCHEDULE_FORM_FIELDS)[number];
export const FIELD_LABEL: Record<ScheduleFormField, string> = { pattern: 'Cron pattern', tz: 'Time zone', data: 'Data' };

export interface FireTime {
  /** Epoch ms. */
  at: number;
  /** In the schedule's zone, e.g. `Fri 31 Jan 2025, 04:05:00 CET`. */
  local: string;
  /** ISO 8601 UTC, for tooltips and machine reading. */
  iso: string;
}

/** A fire time written out in `tz`, with the zone's abbreviation or offset. */
export function formatFireTime(at: number, tz: string): FireTime {
  let local: string;
  try {
    local = new Intl.DateTimeFormat('en-GB', {
      timeZone: tz,
      weekday: 'short',
      day: '2-digit',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    }).format(at);
  } catch {
    local = `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  }
  return { at, local, iso: new Date(at).toISOString() };
}

/** "in 4 min", "in 2 h 5 min", "in 3 d": how far a fire time is from `now`. */
export function formatUntil(at: number, now: number): string {
  const s = Math.round((at - now) / 1000);
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `in ${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `in ${h} h ${m % 60} min` : `in ${h} h`;
  return `in ${Math.floor(h / 24)} d`;
}

export interface DefaultDiff {
  field: ScheduleFormField;
  current: string;
  default: string;
}

/** The fields where the effective schedule differs from the code's default, as text. */
export function diffFromDefault(s: Pick<ScheduleSummary, 'pattern' | 'tz' | 'data' | 'defaults'>): DefaultDiff[] {
  const out: DefaultDiff[] = [];
  if (s.pattern !== s.defaults.pattern) out.push({ field: 'pattern', current: s.pattern, default: s.defaults.pattern });
  if (s.tz !== s.defaults.tz) out.push({ field: 'tz', current: s.tz, default: s.defaults.tz });
  if (!sameJson(s.data, s.defaults.data)) {
    out.push({ field: 'data', current: JSON.stringify(s.data), default: JSON.stringify(s.defaults.data) });
  }
  return out;
}

export type ScheduleState = 'running' | 'paused' | 'inactive';

/** One word for a schedule's state: inactive (cannot run here), paused (by an operator) or running. */
export function scheduleState(s: Pick<ScheduleSummary, 'active' | 'paused'>): ScheduleState {
  if (!s.active) return 'inactive';
  return s.paused ? 'paused' : 'running';
}

/** The job page of a job (the queues segment's route), e.g. a triggered run or a last run. */
export function jobPageHref(queue: string, jobId: string): string {
  return `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(jobId)}`;
}

/** Deep equality of JSON values, key order and undefined keys ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
