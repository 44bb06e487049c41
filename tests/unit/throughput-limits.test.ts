import { describe, expect, it } from 'vitest';
import {
  concurrencyInputSchema,
  describeRateLimit,
  describeWindow,
  effectiveRateLimit,
  rateLimitInputSchema,
} from '@/dashboard/client/throughput-limits';

describe('throughput limits', () => {
  it('takes the global maximum and the job table’s window, as BullMQ’s moveToActive does', () => {
    const global = { max: 5, durationMs: 1_000 };
    const type = { max: 50, durationMs: 60_000 };
    expect(effectiveRateLimit(null, null)).toBeNull();
    expect(effectiveRateLimit(null, type)).toEqual(type);
    expect(effectiveRateLimit(global, null)).toEqual(global);
    expect(effectiveRateLimit(global, type)).toEqual({ max: 5, durationMs: 60_000 });
  });

  it('describes a limit in the largest whole unit', () => {
    expect(describeRateLimit({ max: 1, durationMs: 1_000 })).toBe('1 job per 1 s');
    expect(describeRateLimit({ max: 1_500, durationMs: 60_000 })).toBe('1,500 jobs per 1 min');
    expect(describeWindow(250)).toBe('250 ms');
    expect(describeWindow(1_500)).toBe('1,500 ms');
    expect(describeWindow(7_200_000)).toBe('2 h');
  });

  it('accepts whole numbers in bounds, given as numbers or a form’s strings', () => {
    expect(concurrencyInputSchema.parse({ concurrency: '7' })).toEqual({ concurrency: 7 });
    expect(rateLimitInputSchema.parse({ max: 10, durationMs: '1000' })).toEqual({ max: 10, durationMs: 1_000 });
  });

  it.each([0, -3, 2.5, 10_001, '', ' ', 'ten', null, true, [3], {}])('refuses concurrency %j with a message', (concurrency) => {
    const r = concurrencyInputSchema.safeParse({ concurrency });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toMatch(/whole number|At least 1|At most 10,000/);
  });

  it('refuses a rate limit out of bounds, naming the rule', () => {
    const issues = (v: unknown) => rateLimitInputSchema.safeParse(v).error?.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    expect(issues({ max: 0, durationMs: 1_000 })).toEqual(['max: At least 1 job per window (remove the limit for none)']);
    expect(issues({ max: 1, durationMs: 50 })).toEqual(['durationMs: The window is at least 100 ms']);
    expect(issues({ max: 1, durationMs: 86_400_001 })).toEqual(['durationMs: The window is at most one day (86,400,000 ms)']);
    expect(issues({ max: 2_000_000, durationMs: 1_000 })).toEqual(['max: At most 1,000,000 jobs per window']);
    expect(issues({ max: 1 })).toEqual(['durationMs: Enter the window in whole milliseconds']);
  });
});
