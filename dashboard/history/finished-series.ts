import 'server-only';
import type { SeriesPoint } from '@/dashboard/client/chart-series';

/**
 * The jobs finished per step of `series` counted from their finish times: a foreign
 * queue's workers need not record BullMQ's per-minute metrics, but BullMQ keeps its
 * finished jobs in sets scored by finish time, so what it still keeps can be counted.
 * `series` gives the steps (its `t`s, `stepMs` apart); its counts are replaced. Pure.
 */
export function countFinished(
  series: readonly SeriesPoint[],
  stepMs: number,
  finished: { completed: readonly number[]; failed: readonly number[] },
): SeriesPoint[] {
  const out = series.map((p) => ({ t: p.t, completed: 0, failed: 0 }));
  if (out.length === 0) return out;
  const first = out[0].t;
  const put = (at: number, kind: 'completed' | 'failed') => {
    const i = Math.floor((at - first) / stepMs);
    if (i >= 0 && i < out.length) out[i][kind]++;
  };
  for (const at of finished.completed) put(at, 'completed');
  for (const at of finished.failed) put(at, 'failed');
  return out;
}

/** Whether a series counts no job at all (a queue whose workers record no metrics reads as this). */
export function isEmptySeries(series: readonly SeriesPoint[]): boolean {
  return series.every((p) => p.completed === 0 && p.failed === 0);
}
