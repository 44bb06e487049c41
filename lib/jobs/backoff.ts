/**
 * Backoff policy, pure: inputs in, delay out; `random` is passed in so tests can pin it.
 * Full jitter (docs/requirements.md#queues-retries-and-backoff): delay = random(0, min(base * 2^attempt, cap)). It spreads
 * retries of many jobs that failed together instead of having them return in waves.
 */
export interface FullJitterInput {
  /** 1 for the first retry. */
  attempt: number;
  baseMs: number;
  capMs: number;
  random?: () => number;
}

/** The ceiling full jitter draws below: min(base * 2^(attempt-1), cap). */
export function exponentialCeiling(attempt: number, baseMs: number, capMs: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  }
  // 2^(attempt-1) overflows to Infinity past ~1,000 attempts; min() still gives the cap.
  return Math.min(baseMs * 2 ** (attempt - 1), capMs);
}

export function fullJitterDelay({ attempt, baseMs, capMs, random = Math.random }: FullJitterInput): number {
  if (baseMs < 0 || capMs < 0) throw new RangeError('baseMs and capMs must be >= 0');
  return Math.floor(random() * exponentialCeiling(attempt, baseMs, capMs));
}

/** Upper bound of any exponential backoff delay (docs/requirements.md#background-workers: one hour). */
export const BACKOFF_CAP_MS = 60 * 60 * 1_000;

/** The name BullMQ stores in a job's backoff options for our strategy. */
export const FULL_JITTER = 'full-jitter';
