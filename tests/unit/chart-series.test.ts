import { describe, expect, it } from 'vitest';
import { failureRates, jobsPerMinute, summarise, sumSeries, toCounts, toSeries, type MetricsLike } from '@/dashboard/client/chart-series';

const MIN = 60_000;
// A fixed "now": 12:30:20 on some day, i.e. 20 s into minute M.
const M = 28_000_000;
const now = M * MIN + 20_000;

function metrics(prevMinute: number, count: number, prevCount: number, data: number[]): MetricsLike {
  return { meta: { count, prevTS: prevMinute * MIN + 5_000, prevCount }, data };
}

describe('toCounts', () => {
  it('is all zeros when BullMQ has recorded nothing', () => {
    expect(toCounts(undefined, now)).toEqual(new Array(60).fill(0));
    expect(toCounts({ meta: { count: 0, prevTS: 0, prevCount: 0 }, data: [] }, now, 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it('puts the open minute (count - prevCount) last and closed minutes before it, newest first in data', () => {
    // Minute M is open with 7 jobs; M-1 closed with 3; M-2 with 0; M-3 with 9.
    const m = metrics(M, 119, 112, [3, 0, 9]);
    expect(toCounts(m, now, 5)).toEqual([0, 9, 0, 3, 7]);
  });

  it('shifts by the minutes that passed without jobs since prevTS', () => {
    // Last job 2 minutes ago (minute M-2 open with 4 jobs), M-3 closed with 6.
    const m = metrics(M - 2, 10, 6, [6]);
    expect(toCounts(m, now, 5)).toEqual([0, 6, 4, 0, 0]);
  });

  it('drops data older than the window and points after now', () => {
    const m = metrics(
      M,
      5,
      0,
      Array.from({ length: 100 }, () => 1),
    );
    const counts = toCounts(m, now, 60);
    expect(counts).toHaveLength(60);
    expect(counts[59]).toBe(5);
    expect(counts.slice(0, 59).every((c) => c === 1)).toBe(true);
    // A prevTS in the future (clock skew between hosts) is ignored, not misplaced.
    expect(toCounts(metrics(M + 3, 5, 0, []), now, 5)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('toSeries', () => {
  it('aligns completed and failed on minute starts, oldest first', () => {
    const s = toSeries({ completed: metrics(M, 12, 10, [4]), failed: metrics(M - 1, 1, 0, []) }, now, 3);
    expect(s).toEqual([
      { t: (M - 2) * MIN, completed: 0, failed: 0 },
      { t: (M - 1) * MIN, completed: 4, failed: 1 },
      { t: M * MIN, completed: 2, failed: 0 },
    ]);
  });

  it('sums several queues point by point and derives rates', () => {
    const a = toSeries({ completed: metrics(M, 3, 0, [1]) }, now, 2);
    const b = toSeries({ completed: metrics(M, 1, 0, []), failed: metrics(M, 1, 0, [3]) }, now, 2);
    const sum = sumSeries([a, b]);
    expect(sum.map((p) => [p.completed, p.failed])).toEqual([
      [1, 3],
      [4, 1],
    ]);
    expect(jobsPerMinute(sum)).toEqual([4, 5]);
    expect(failureRates(sum)).toEqual([0.75, 0.2]);
    expect(failureRates([{ t: 0, completed: 0, failed: 0 }])).toEqual([0]);
    expect(sumSeries([])).toEqual([]);
  });

  it('summarises the closed minutes only (the current minute is partial)', () => {
    const series = [
      { t: 0, completed: 10, failed: 0 },
      { t: 1, completed: 8, failed: 2 },
      { t: 2, completed: 1000, failed: 1000 },
    ];
    expect(summarise(series, 5)).toEqual({ jobsPerMin: 10, failureRate: 0.1 });
    expect(summarise([], 5)).toEqual({ jobsPerMin: 0, failureRate: 0 });
  });
});
