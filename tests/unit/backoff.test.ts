import { describe, expect, it } from 'vitest';
import { exponentialCeiling, fullJitterDelay, FULL_JITTER } from '@/lib/jobs/backoff';
import { backoffStrategy } from '@/lib/runtime/worker-pool';

const HOUR = 3_600_000;

describe('full-jitter backoff', () => {
  it('draws below min(base * 2^(attempt-1), cap)', () => {
    expect(exponentialCeiling(1, 1_000, HOUR)).toBe(1_000);
    expect(exponentialCeiling(4, 1_000, HOUR)).toBe(8_000);
    expect(exponentialCeiling(30, 1_000, HOUR)).toBe(HOUR);
    expect(exponentialCeiling(5_000, 1_000, HOUR)).toBe(HOUR);
  });

  it('spans the whole interval: random 0 gives 0, random ~1 gives the ceiling', () => {
    expect(fullJitterDelay({ attempt: 3, baseMs: 250, capMs: 5_000, random: () => 0 })).toBe(0);
    expect(fullJitterDelay({ attempt: 3, baseMs: 250, capMs: 5_000, random: () => 0.999_999 })).toBe(999);
    expect(fullJitterDelay({ attempt: 10, baseMs: 250, capMs: 5_000, random: () => 0.5 })).toBe(2_500);
  });

  it('stays inside its bounds over many draws and is not constant', () => {
    const draws = Array.from({ length: 1_000 }, () => fullJitterDelay({ attempt: 5, baseMs: 100, capMs: HOUR }));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1_600);
    expect(new Set(draws).size).toBeGreaterThan(100);
  });

  it('rejects attempts below 1', () => {
    expect(() => exponentialCeiling(0, 1_000, HOUR)).toThrow(/attempt must be an integer >= 1/);
  });

  it('is what BullMQ gets for our backoff type, capped at one hour', () => {
    const job = { opts: { backoff: { type: FULL_JITTER, delay: 60_000 } } };
    for (let i = 0; i < 200; i++) {
      const d = backoffStrategy(20, FULL_JITTER, undefined, job);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(HOUR);
    }
    expect(() => backoffStrategy(1, 'mystery', undefined, job)).toThrow(/Unknown backoff type/);
  });
});
