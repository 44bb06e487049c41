import { z } from 'zod';

/** BullMQ's `Queue.getMetrics()` answer (the fields used here). */
export interface MetricsLike {
  meta: { count: number; prevTS: number; prevCount: number };
  /** Per-minute counts, newest first: data[i] is the minute i+1 before the minute of `prevTS`. */
  data: number[];
}

export const seriesPointSchema = z.object({
  /** Start of the minute, epoch ms. */
  t: z.number().int(),
  completed: z.number().int().min(0),
  failed: z.number().int().min(0),
});
export type SeriesPoint = z.infer<typeof seriesPointSchema>;

const MINUTE = 60_000;

/**
 * Per-minute counts for the `minutes` minutes ending with the current one, oldest
 * first, from BullMQ's metrics. BullMQ closes a minute only when the next job
 * finishes: `data` holds closed minutes before the minute of `prevTS`, and the jobs
 * of that minute are `count - prevCount`. Minutes after `prevTS` had no jobs. Pure:
 * `nowMs` is passed in.
 */
export function toCounts(metrics: MetricsLike | undefined, nowMs: number, minutes = 60): number[] {
  const out = new Array<number>(minutes).fill(0);
  if (!metrics?.meta.prevTS) return out;
  const nowMin = Math.floor(nowMs / MINUTE);
  const lastMin = Math.floor(metrics.meta.prevTS / MINUTE);
  const put = (minute: number, value: number) => {
    const idx = minutes - 1 - (nowMin - minute);
    if (idx >= 0 && idx < minutes) out[idx] = Math.max(0, Math.round(value) || 0);
  };
  put(lastMin, metrics.meta.count - metrics.meta.prevCount);
  for (const [i, v] of metrics.data.entries()) put(lastMin - 1 - i, v);
  return out;
}

/** Completed and failed per minute, aligned on the same minutes, oldest first. */
export function toSeries(metrics: { completed?: MetricsLike; failed?: MetricsLike }, nowMs: number, minutes = 60): SeriesPoint[] {
  const completed = toCounts(metrics.completed, nowMs, minutes);
  const failed = toCounts(metrics.failed, nowMs, minutes);
  const first = (Math.floor(nowMs / MINUTE) - minutes + 1) * MINUTE;
  return completed.map((c, i) => ({ t: first + i * MINUTE, completed: c, failed: failed[i] }));
}

/** Point-wise sum of several series of the same minutes (the overview's all-queue chart). */
export function sumSeries(all: SeriesPoint[][]): SeriesPoint[] {
  if (all.length === 0) return [];
  return all[0].map((p, i) => ({
    t: p.t,
    completed: all.reduce((s, series) => s + (series[i]?.completed ?? 0), 0),
    failed: all.reduce((s, series) => s + (series[i]?.failed ?? 0), 0),
  }));
}

/** Failure rate per minute, 0..1; a minute without jobs counts as 0. */
export function failureRates(series: SeriesPoint[]): number[] {
  return series.map((p) => (p.completed + p.failed === 0 ? 0 : p.failed / (p.completed + p.failed)));
}

/** Jobs finished per minute (completed + failed). */
export function jobsPerMinute(series: SeriesPoint[]): number[] {
  return series.map((p) => p.completed + p.failed);
}

/**
 * Headline numbers: jobs/min over the last `window` closed minutes (the current
 * minute is partial, so it is left out) and the failure rate over the same span.
 */
export function summarise(series: SeriesPoint[], window = 5): { jobsPerMin: number; failureRate: number } {
  const closed = series.slice(Math.max(0, series.length - 1 - window), series.length - 1);
  const done = closed.reduce((s, p) => s + p.completed + p.failed, 0);
  const failed = closed.reduce((s, p) => s + p.failed, 0);
  return { jobsPerMin: closed.length ? done / closed.length : 0, failureRate: done ? failed / done : 0 };
}
