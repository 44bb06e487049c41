/** The required duration buckets, in seconds. */
export const DURATION_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 300] as const;

/**
 * One job type's counters as plain numbers. The runtime records every attempt here
 * (a few additions, no allocation); the Prometheus metrics read them at scrape time.
 * prom-client's own inc/observe hash their labels and validate them on every call,
 * which at thousands of jobs per second costs more than the rest of the runtime.
 */
export class JobStats {
  active = 0;
  completed = 0;
  retried = 0;
  failed = 0;
  /** Count of observations ≤ each bucket's bound (not cumulative; summed at read). */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  durationSum = 0;
  durationCount = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    this.buckets[i]++;
    this.durationSum += seconds;
    this.durationCount++;
  }
}
