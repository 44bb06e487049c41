import { describe, expect, it } from 'vitest';
import type { Classification } from '@/lib/errors/classify';
import { DEFAULT_RETRY_POLICY, RETRYABLE_HTTP_STATUS, resolvePolicy, retryDelay, shouldRetry } from '@/lib/retry/retry-policy';

describe('retry policy: resolving', () => {
  it('defaults to 3 attempts, 250 ms doubling up to 5 s, 10 s per attempt, with jitter', () => {
    expect(resolvePolicy()).toEqual({ maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 5_000, timeoutMs: 10_000, jitter: true });
    expect(DEFAULT_RETRY_POLICY).toEqual(resolvePolicy({}));
  });

  it('applies overrides field by field', () => {
    expect(resolvePolicy({ maxAttempts: 5, jitter: false })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 5, jitter: false });
  });

  it('accepts each bound and refuses one past it, with the rule', () => {
    expect(resolvePolicy({ maxAttempts: 1 }).maxAttempts).toBe(1);
    expect(resolvePolicy({ maxAttempts: 100 }).maxAttempts).toBe(100);
    expect(resolvePolicy({ baseDelayMs: 0, maxDelayMs: 0 })).toMatchObject({ baseDelayMs: 0, maxDelayMs: 0 });
    expect(resolvePolicy({ timeoutMs: 1 }).timeoutMs).toBe(1);
    const refused: Array<Partial<Record<string, unknown>>> = [
      { maxAttempts: 0 },
      { maxAttempts: 101 },
      { maxAttempts: 2.5 },
      { baseDelayMs: -1 },
      { maxDelayMs: -1 },
      { timeoutMs: 0 },
      { jitter: 'yes' },
      { retries: 3 },
    ];
    for (const bad of refused) {
      expect(() => resolvePolicy(bad as never), JSON.stringify(bad)).toThrow(/^Invalid retry policy: /);
    }
    expect(() => resolvePolicy({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => resolvePolicy({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

describe('retry policy: which outcomes retry', () => {
  const c = (errorClass: Classification['errorClass'], retryable: boolean, httpStatus?: number): Classification => ({
    errorClass,
    retryable,
    httpStatus,
  });

  it('retries the network, timeout, rate-limit and server classes when retryable', () => {
    for (const k of ['network', 'timeout', 'rate_limit', 'server'] as const) expect(shouldRetry(c(k, true)), k).toBe(true);
  });

  it('never retries another class, even one the job runtime retries', () => {
    for (const k of ['unknown', 'conflict', 'client', 'validation', 'permanent'] as const) expect(shouldRetry(c(k, true)), k).toBe(false);
  });

  it('never retries what the classification calls permanent', () => {
    expect(shouldRetry(c('network', false))).toBe(false);
  });

  it('retries only the listed HTTP statuses', () => {
    expect([...RETRYABLE_HTTP_STATUS].sort()).toEqual([408, 425, 429, 500, 502, 503, 504]);
    for (const s of RETRYABLE_HTTP_STATUS) expect(shouldRetry(c('server', true, s)), String(s)).toBe(true);
    for (const s of [501, 505, 599]) expect(shouldRetry(c('server', true, s)), String(s)).toBe(false);
  });
});

describe('retry policy: the delay before the next attempt', () => {
  const plain = { ...DEFAULT_RETRY_POLICY, jitter: false };

  it('is the exponential ceiling without jitter, a draw below it with', () => {
    expect(retryDelay(plain, 1, undefined)).toBe(250);
    expect(retryDelay(plain, 2, undefined)).toBe(500);
    expect(retryDelay(plain, 10, undefined)).toBe(5_000);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 2, undefined, () => 0.5)).toBe(250);
  });

  it('is raised to Retry-After, rounded up to a whole ms, and capped by the policy', () => {
    expect(retryDelay(plain, 1, 1_500.2)).toBe(1_501);
    expect(retryDelay(plain, 1, 60_000)).toBe(5_000);
    expect(retryDelay(DEFAULT_RETRY_POLICY, 1, 2_000, () => 0)).toBe(2_000);
  });

  it('ignores a Retry-After of zero, below zero or not a number', () => {
    for (const r of [0, -5, Number.NaN])
      expect(
        retryDelay(DEFAULT_RETRY_POLICY, 1, r, () => 0.5),
        String(r),
      ).toBe(125);
  });
});
