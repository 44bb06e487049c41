import { describe, expect, it } from 'vitest';
import { countFinished, isEmptySeries } from '@/dashboard/history/finished-series';

const MINUTE = 60_000;
const series = [0, 1, 2].map((i) => ({ t: 1_000 * MINUTE + i * MINUTE, completed: 0, failed: 0 }));

describe('countFinished: a foreign queue history from its jobs finish times', () => {
  it('counts each finish time in its step, and ignores times outside the series', () => {
    const at = (minute: number, s = 0) => 1_000 * MINUTE + minute * MINUTE + s * 1_000;
    const out = countFinished(series, MINUTE, {
      completed: [at(0, 1), at(0, 59), at(2, 30), at(-1), at(3)],
      failed: [at(1, 5)],
    });
    expect(out.map((p) => [p.completed, p.failed])).toEqual([
      [2, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(isEmptySeries(out)).toBe(false);
    expect(isEmptySeries(series)).toBe(true);
  });
});
