import { z } from 'zod';

/*
 * A queue's runtime throughput limits: BullMQ's global concurrency and global rate
 * limit, kept in the queue's meta hash, so they hold for every worker process and
 * survive restarts. Pure: the bounds, the input schemas and how the limits combine
 * with the job table's own per-type values. Client-safe (no Redis).
 */

/** Highest global concurrency accepted: far above any real fleet, low enough to catch a typo. */
export const MAX_GLOBAL_CONCURRENCY = 10_000;
/** Highest rate-limit maximum accepted per window. */
export const MAX_RATE_LIMIT_JOBS = 1_000_000;
/** Shortest rate-limit window: BullMQ counts starts in a Redis key that expires after it. */
export const MIN_RATE_LIMIT_WINDOW_MS = 100;
/** Longest rate-limit window: one day. */
export const MAX_RATE_LIMIT_WINDOW_MS = 24 * 60 * 60 * 1_000;

/** A whole number in bounds, given as a number or a form field's string; nothing else becomes a number. */
function wholeNumber(message: string, inner: (n: z.ZodNumber) => z.ZodNumber) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), inner(z.number({ error: message }).int(message)));
}

export const globalConcurrencySchema = wholeNumber('Enter a whole number of jobs', (n) =>
  n
    .min(1, 'At least 1 job at once (remove the limit for none)')
    .max(MAX_GLOBAL_CONCURRENCY, `At most ${MAX_GLOBAL_CONCURRENCY.toLocaleString('en')} jobs at once`),
);

export const rateLimitMaxSchema = wholeNumber('Enter a whole number of jobs', (n) =>
  n
    .min(1, 'At least 1 job per window (remove the limit for none)')
    .max(MAX_RATE_LIMIT_JOBS, `At most ${MAX_RATE_LIMIT_JOBS.toLocaleString('en')} jobs per window`),
);

export const rateLimitWindowSchema = wholeNumber('Enter the window in whole milliseconds', (n) =>
  n
    .min(MIN_RATE_LIMIT_WINDOW_MS, `The window is at least ${MIN_RATE_LIMIT_WINDOW_MS} ms`)
    .max(MAX_RATE_LIMIT_WINDOW_MS, 'The window is at most one day (86,400,000 ms)'),
);

/** The inputs of the two settings, without the queue (the action adds it). */
export const concurrencyInputSchema = z.object({ concurrency: globalConcurrencySchema });
export const rateLimitInputSchema = z.object({ max: rateLimitMaxSchema, durationMs: rateLimitWindowSchema });

export const rateLimitSchema = z.object({ max: z.number().int(), durationMs: z.number().int() });
export type RateLimit = z.infer<typeof rateLimitSchema>;

/** A setting before and after a change: what the action returns and the audit entry records. */
export interface LimitChange<T> {
  before: T | null;
  after: T | null;
}

/** What the queue page shows: the global limits and the job table's defaults they sit on. */
export const throughputSchema = z.object({
  /** Jobs of the queue running at once across all workers; null = no global cap. */
  globalConcurrency: z.number().int().nullable(),
  /** Job starts per window across all workers, as stored; null = none set. */
  globalRateLimit: rateLimitSchema.nullable(),
  /** The job table's concurrency: jobs at once in each worker process. */
  processConcurrency: z.number().int(),
  /** The job table's rate limit for the type (each worker's BullMQ limiter), if it declares one. */
  typeRateLimit: rateLimitSchema.nullable(),
  /** The rate limit BullMQ enforces from the two (see effectiveRateLimit). */
  effectiveRateLimit: rateLimitSchema.nullable(),
});
export type Throughput = z.infer<typeof throughputSchema>;

/**
 * The rate limit in force. BullMQ's moveToActive takes the maximum from the queue's
 * global limit when one is set, else the worker's limiter, but the window from the
 * worker's limiter when it has one, else the global one. So on a type whose job table
 * declares a rate limit, the global limit replaces its maximum and keeps its window.
 */
export function effectiveRateLimit(global: RateLimit | null, type: RateLimit | null): RateLimit | null {
  if (!global) return type;
  return { max: global.max, durationMs: type?.durationMs ?? global.durationMs };
}

/** "10 jobs per 1 s", "50 jobs per 1 min", "3 jobs per 250 ms". */
export function describeRateLimit(r: RateLimit): string {
  return `${r.max.toLocaleString('en')} ${r.max === 1 ? 'job' : 'jobs'} per ${describeWindow(r.durationMs)}`;
}

export function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms.toLocaleString('en')} ms`;
}
