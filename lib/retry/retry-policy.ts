import { z } from 'zod';
import type { Classification, ErrorClass } from '../errors/classify';
import { exponentialCeiling, fullJitterDelay } from '../jobs/backoff';

/**
 * How `withRetry` retries one operation (docs/requirements.md#retry-idempotency-and-dead-letters). Pure: no I/O, the
 * random source is passed in so tests can pin it.
 */
export const retryPolicySchema = z
  .object({
    /**
     * Attempts in all, the first included.
     * @defaultValue 3
     */
    maxAttempts: z.number().int().min(1).max(100),
    /**
     * Ceiling of the first retry's delay; it doubles per retry.
     * @defaultValue 250
     */
    baseDelayMs: z.number().int().min(0),
    /**
     * Largest delay between two attempts, Retry-After included.
     * @defaultValue 5000
     */
    maxDelayMs: z.number().int().min(0),
    /**
     * Limit of one attempt; its signal aborts with a TimeoutError when it passes.
     * @defaultValue 10000
     */
    timeoutMs: z.number().int().min(1),
    /**
     * Full jitter: wait random(0, ceiling) instead of the ceiling itself, so callers that
     * failed together do not come back together.
     * @defaultValue true
     */
    jitter: z.boolean(),
  })
  .strict();
export type RetryPolicy = z.infer<typeof retryPolicySchema>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  timeoutMs: 10_000,
  jitter: true,
});

/** The default policy with `overrides` applied; a bad value is refused with its rule. */
export function resolvePolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const parsed = retryPolicySchema.safeParse({ ...DEFAULT_RETRY_POLICY, ...overrides });
  if (!parsed.success) {
    throw new RangeError(`Invalid retry policy: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

/** Classes another attempt can fix. */
const RETRYABLE_CLASSES: ReadonlySet<ErrorClass> = new Set(['network', 'timeout', 'rate_limit', 'server']);
/** The statuses the retry requirements (docs/requirements.md#retry-idempotency-and-dead-letters) retries; 501, 505 and the like are not in it. */
export const RETRYABLE_HTTP_STATUS: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Whether a call should be tried again. Stricter than the job runtime: `classifyError`
 * retries an `unknown` error because a job's attempt limit bounds it, but inside one
 * job an unknown error is more likely a bug than a blip, so it is not retried here.
 */
export function shouldRetry(c: Classification): boolean {
  if (!c.retryable || !RETRYABLE_CLASSES.has(c.errorClass)) return false;
  return c.httpStatus === undefined || RETRYABLE_HTTP_STATUS.has(c.httpStatus);
}

/**
 * Delay before attempt `failedAttempt + 1`: full jitter (or the plain exponential
 * ceiling without jitter), raised to a server's Retry-After, everything capped by
 * `maxDelayMs`.
 */
export function retryDelay(
  policy: RetryPolicy,
  failedAttempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const computed = policy.jitter
    ? fullJitterDelay({ attempt: failedAttempt, baseMs: policy.baseDelayMs, capMs: policy.maxDelayMs, random })
    : exponentialCeiling(failedAttempt, policy.baseDelayMs, policy.maxDelayMs);
  if (retryAfterMs === undefined || !(retryAfterMs > 0)) return computed;
  return Math.max(computed, Math.min(Math.ceil(retryAfterMs), policy.maxDelayMs));
}
