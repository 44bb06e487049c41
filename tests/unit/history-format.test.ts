import { describe, expect, it } from 'vitest';
import { formatLatency, formatMs } from '@/dashboard/client/history-format';

describe('formatMs / formatLatency', () => {
  it('uses the unit that fits, with two significant digits', () => {
    expect(formatMs(0.4)).toBe('< 1 ms');
    expect(formatMs(7.94)).toBe('7.9 ms');
    expect(formatMs(100)).toBe('100 ms');
    expect(formatMs(251.2)).toBe('250 ms');
    expect(formatMs(1_258.9)).toBe('1.3 s');
    expect(formatMs(60_000)).toBe('1 min');
    expect(formatMs(5_400_000)).toBe('1.5 h');
  });

  it('rounds before choosing the unit: never "1000 ms" or "60 s"', () => {
    expect(formatMs(999.7)).toBe('1 s');
    expect(formatMs(59_800)).toBe('1 min');
    expect(formatMs(3_599_000)).toBe('1 h');
  });

  it('marks the open-ended top bucket and an empty one', () => {
    expect(formatLatency({ ms: 79_432_823, atLeast: true })).toBe('≥ 22 h');
    expect(formatLatency({ ms: 40, atLeast: false })).toBe('40 ms');
    expect(formatLatency(null)).toBe('—');
  });
});
