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

describe('full-jitter backoff: its edges', () => {
  it('doubles per attempt from the base', () => {
    expect([1, 2, 3, 4].map((n) => exponentialCeiling(n, 250, HOUR))).toEqual([250, 500, 1_000, 2_000]);
    // The cap applies the moment the doubling passes it, not later.
    expect(exponentialCeiling(3, 250, 900)).toBe(900);
  });

  it('refuses an attempt that is not a whole number >= 1, naming it', () => {
    expect(() => exponentialCeiling(1.5, 1_000, HOUR)).toThrow('attempt must be an integer >= 1, got 1.5');
    expect(() => exponentialCeiling(-2, 1_000, HOUR)).toThrow(RangeError);
    expect(exponentialCeiling(1, 1_000, HOUR)).toBe(1_000);
  });

  it('refuses a negative base or cap, and takes zero for either', () => {
    expect(() => fullJitterDelay({ attempt: 1, baseMs: -1, capMs: HOUR, random: () => 0.5 })).toThrow('baseMs and capMs must be >= 0');
    expect(() => fullJitterDelay({ attempt: 1, baseMs: 100, capMs: -1, random: () => 0.5 })).toThrow(RangeError);
    expect(fullJitterDelay({ attempt: 1, baseMs: 0, capMs: HOUR, random: () => 0.5 })).toBe(0);
    expect(fullJitterDelay({ attempt: 3, baseMs: 100, capMs: 0, random: () => 0.5 })).toBe(0);
  });

  it('rounds the draw down to a whole millisecond', () => {
    expect(fullJitterDelay({ attempt: 2, baseMs: 3, capMs: HOUR, random: () => 0.5 })).toBe(3);
    expect(fullJitterDelay({ attempt: 1, baseMs: 7, capMs: HOUR, random: () => 0.99 })).toBe(6);
  });

  it('caps every backoff at one hour under the name BullMQ stores', async () => {
    const { BACKOFF_CAP_MS } = await import('@/lib/jobs/backoff');
    expect(BACKOFF_CAP_MS).toBe(HOUR);
    expect(FULL_JITTER).toBe('full-jitter');
  });
});
