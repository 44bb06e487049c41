import 'server-only';
import { HOUR_MS, hourOf, MINUTE_POINTS } from '@/lib/metrics/history-layout';
import type { SeriesPoint } from '@/dashboard/client/chart-series';
import { type HistoryRange, RANGE_SPEC } from '@/dashboard/client/history-range';

/** Completed and failed jobs of one hour. */
export interface HourCounts {
  completed: number;
  failed: number;
}

const MINUTE = 60_000;

/** The hours a range covers: `fromHour..toHour` (epoch hours), in points of `stepHours`, the last holding now. */
export function rangeHours(range: Exclude<HistoryRange, '1h'>, nowMs: number): { fromHour: number; toHour: number; stepHours: number } {
  const spec = RANGE_SPEC[range];
  const stepHours = spec.stepMs / HOUR_MS;
  const toHour = hourOf(nowMs);
  const lastStep = Math.floor(toHour / stepHours) * stepHours;
  return { fromHour: lastStep - (spec.points - 1) * stepHours, toHour, stepHours };
}

/** The first hour whose run-time and wait percentiles a range shows: for 1 h, this hour and the last. */
export function latencyFromHour(range: HistoryRange, nowMs: number): number {
  return range === '1h' ? hourOf(nowMs - 59 * MINUTE) : rangeHours(range, nowMs).fromHour;
}

/**
 * How many of the newest minutes of BullMQ's per-minute counters are needed to fill the
 * hours `missing` (hours the roll-up has no record of) — 0 when none of them is still
 * within the MINUTE_POINTS BullMQ keeps.
 */
export function minutesNeeded(missing: readonly number[], nowMs: number, keptMinutes = MINUTE_POINTS): number {
  const nowMin = Math.floor(nowMs / MINUTE);
  const oldestKept = nowMin - keptMinutes + 1;
  const covered = missing.filter((h) => (h + 1) * 60 > oldestKept);
  if (covered.length === 0) return 0;
  const from = Math.max(Math.min(...covered) * 60, oldestKept);
  return nowMin - from + 1;
}

/** Per-minute counts (oldest first, the first minute starting at `firstMinuteMs`) summed by UTC hour. */
export function minutesByHour(completed: readonly number[], failed: readonly number[], firstMinuteMs: number): Map<number, HourCounts> {
  const out = new Map<number, HourCounts>();
  for (let i = 0; i < completed.length; i++) {
    const c = completed[i] ?? 0;
    const f = failed[i] ?? 0;
    if (c === 0 && f === 0) continue;
    const hour = hourOf(firstMinuteMs + i * MINUTE);
    const h = out.get(hour) ?? { completed: 0, failed: 0 };
    h.completed += c;
    h.failed += f;
    out.set(hour, h);
  }
  return out;
}

/**
 * One count per hour `fromHour..toHour`: the roll-up's, or, for an hour it has no record
 * of (before it was written, while it was off, a queue whose workers are not Bullpen's),
 * the per-minute counters' sum. Where both have the hour, the larger: both count the same
 * jobs and either can only miss some (a crashed worker's last unflushed seconds, a roll-up
 * that started mid-hour), never invent them.
 */
export function mergeHourCounts(
  fromHour: number,
  toHour: number,
  rollup: ReadonlyMap<number, HourCounts>,
  minutes?: ReadonlyMap<number, HourCounts>,
): HourCounts[] {
  const out: HourCounts[] = [];
  for (let h = fromHour; h <= toHour; h++) {
    const r = rollup.get(h);
    const m = minutes?.get(h);
    out.push({ completed: Math.max(r?.completed ?? 0, m?.completed ?? 0), failed: Math.max(r?.failed ?? 0, m?.failed ?? 0) });
  }
  return out;
}

/** Hourly counts (index 0 = `fromHour`) as chart points of `stepHours` each, oldest first. */
export function toHourlySeries(counts: readonly HourCounts[], fromHour: number, stepHours: number, points: number): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  for (let p = 0; p < points; p++) {
    let completed = 0;
    let failed = 0;
    for (let k = 0; k < stepHours; k++) {
      const c = counts[p * stepHours + k];
      completed += c?.completed ?? 0;
      failed += c?.failed ?? 0;
    }
    out.push({ t: (fromHour + p * stepHours) * HOUR_MS, completed, failed });
  }
  return out;
}
