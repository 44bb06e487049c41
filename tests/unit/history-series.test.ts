import { describe, expect, it } from 'vitest';
import {
  latencyFromHour,
  mergeHourCounts,
  minutesByHour,
  minutesNeeded,
  rangeHours,
  toHourlySeries,
} from '@/dashboard/history/history-series';

const HOUR = 3_600_000;
const MIN = 60_000;
// A fixed now: 25 minutes into hour H (H a multiple of 6, so 6-hour steps start there).
const H = 480_000;
const now = H * HOUR + 25 * MIN;

describe('rangeHours / latencyFromHour', () => {
  it('ends each range with the current hour', () => {
    expect(rangeHours('24h', now)).toEqual({ fromHour: H - 23, toHour: H, stepHours: 1 });
    expect(rangeHours('7d', now)).toEqual({ fromHour: H - 167, toHour: H, stepHours: 1 });
    expect(rangeHours('30d', now)).toEqual({ fromHour: H - 119 * 6, toHour: H, stepHours: 6 });
  });

  it('aligns 30 d on 6-hour steps of UTC', () => {
    const later = now + 3 * HOUR;
    expect(rangeHours('30d', later)).toEqual({ fromHour: H - 119 * 6, toHour: H + 3, stepHours: 6 });
  });

  it('takes the percentiles of 1 h from this hour and the last', () => {
    expect(latencyFromHour('1h', now)).toBe(H - 1);
    expect(latencyFromHour('7d', now)).toBe(H - 167);
  });
});

describe('minutesNeeded', () => {
  it('is 0 when no hour is missing or none is still kept per minute', () => {
    expect(minutesNeeded([], now)).toBe(0);
    expect(minutesNeeded([H - 1000], now, 60 * 24 * 14)).toBe(0);
  });

  it('reaches back to the start of the oldest missing hour that is kept', () => {
    expect(minutesNeeded([H], now)).toBe(26);
    expect(minutesNeeded([H - 2, H], now)).toBe(2 * 60 + 26);
  });

  it('stops at what BullMQ keeps', () => {
    expect(minutesNeeded([H - 2], now, 100)).toBe(100);
    expect(minutesNeeded([H - 3], now, 100)).toBe(0);
  });
});

describe('minutesByHour', () => {
  it('sums per-minute counts into their UTC hours', () => {
    const first = (H - 1) * HOUR + 58 * MIN; // two minutes of hour H-1, then hour H
    const hours = minutesByHour([1, 2, 3, 0], [0, 1, 0, 0], first);
    expect(hours.get(H - 1)).toEqual({ completed: 3, failed: 1 });
    expect(hours.get(H)).toEqual({ completed: 3, failed: 0 });
    expect(hours.size).toBe(2);
  });
});

describe('mergeHourCounts', () => {
  it('takes the roll-up, fills the hours it lacks from the minutes, and the larger where both have one', () => {
    const rollup = new Map([
      [H - 2, { completed: 10, failed: 1 }],
      [H, { completed: 4, failed: 0 }],
    ]);
    const minutes = new Map([
      [H - 1, { completed: 7, failed: 2 }],
      [H, { completed: 5, failed: 0 }],
    ]);
    expect(mergeHourCounts(H - 3, H, rollup, minutes)).toEqual([
      { completed: 0, failed: 0 },
      { completed: 10, failed: 1 },
      { completed: 7, failed: 2 },
      { completed: 5, failed: 0 },
    ]);
    expect(mergeHourCounts(H - 1, H, rollup)).toEqual([
      { completed: 0, failed: 0 },
      { completed: 4, failed: 0 },
    ]);
  });
});

describe('toHourlySeries', () => {
  it('groups hours into steps, oldest first, with each step’s start', () => {
    const counts = Array.from({ length: 12 }, (_, i) => ({ completed: i, failed: i % 2 }));
    const s = toHourlySeries(counts, H - 6, 6, 2);
    expect(s).toEqual([
      { t: (H - 6) * HOUR, completed: 0 + 1 + 2 + 3 + 4 + 5, failed: 3 },
      { t: H * HOUR, completed: 6 + 7 + 8 + 9 + 10 + 11, failed: 3 },
    ]);
  });

  it('is zero for hours not yet come', () => {
    expect(toHourlySeries([{ completed: 2, failed: 1 }], H, 6, 1)).toEqual([{ t: H * HOUR, completed: 2, failed: 1 }]);
  });
});
