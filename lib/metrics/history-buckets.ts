/**
 * The histogram behind the history's duration and wait percentiles: fixed, log-spaced
 * buckets, ten per decade of milliseconds, so a queue-hour's distribution is a handful of
 * small counters whatever the number of jobs, and hours add up by adding counters.
 *
 * Bucket 0 holds 0..1 ms; bucket i (1..79) holds (10^((i-1)/10), 10^(i/10)] ms, a factor of
 * 1.26 wide; bucket 80 holds everything above 10^7.9 ms (about 22 h). Pure: no I/O.
 */
export const BUCKETS_PER_DECADE = 10;
/** Buckets of one histogram, the overflow bucket included. */
export const HISTOGRAM_BUCKETS = 81;
const LAST = HISTOGRAM_BUCKETS - 1;

/** A dense histogram: `counts[i]` observations fell in bucket i. */
export type Histogram = number[];

export function emptyHistogram(): Histogram {
  return new Array<number>(HISTOGRAM_BUCKETS).fill(0);
}

/** The bucket a value in milliseconds falls in (negative and non-finite values clamp to the ends). */
export function bucketOf(ms: number): number {
  if (!(ms > 1)) return 0;
  // A small epsilon keeps exact bounds (10 ms, 100 ms) in their own bucket despite log10's rounding.
  const i = Math.ceil(Math.log10(ms) * BUCKETS_PER_DECADE - 1e-9);
  return Math.min(i, LAST);
}

/** The bucket's lower and upper bound in ms; the overflow bucket's upper bound is Infinity. */
export function bucketBounds(i: number): { lower: number; upper: number } {
  if (i <= 0) return { lower: 0, upper: 1 };
  const lower = 10 ** ((i - 1) / BUCKETS_PER_DECADE);
  return { lower, upper: i >= LAST ? Number.POSITIVE_INFINITY : 10 ** (i / BUCKETS_PER_DECADE) };
}

/** Adds `source` into `target` bucket by bucket. */
export function mergeInto(target: Histogram, source: ArrayLike<number>): Histogram {
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) target[i] += source[i] ?? 0;
  return target;
}

export function histogramCount(h: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < h.length; i++) n += h[i];
  return n;
}

/** An estimated percentile: the value in ms, and whether it lies in the open-ended overflow bucket. */
export interface PercentileEstimate {
  ms: number;
  /** True when the rank falls in the overflow bucket: the value is "more than `ms`". */
  atLeast: boolean;
}

/**
 * The `p`th percentile (0 < p ≤ 100) of a histogram, or null when it is empty. The rank is
 * the nearest rank (⌈p·n/100⌉); within its bucket the value is interpolated on the log scale
 * by the rank's position among the bucket's observations (linearly in bucket 0), as
 * Prometheus's histogram_quantile does linearly: the estimate never leaves the bucket that
 * holds the true value, so it is off by less than the bucket's factor of 1.26.
 */
export function percentile(h: ArrayLike<number>, p: number): PercentileEstimate | null {
  if (!(p > 0 && p <= 100)) throw new RangeError(`A percentile is in (0, 100], got ${p}`);
  const n = histogramCount(h);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  let before = 0;
  for (let i = 0; i < h.length; i++) {
    const inBucket = h[i];
    if (inBucket > 0 && before + inBucket >= rank) {
      const { lower, upper } = bucketBounds(i);
      if (!Number.isFinite(upper)) return { ms: lower, atLeast: true };
      const fraction = (rank - before) / inBucket;
      const ms = i === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
      return { ms, atLeast: false };
    }
    before += inBucket;
  }
  return null;
}

/** The three percentiles the dashboard shows, with the number of observations behind them. */
export interface LatencySummary {
  count: number;
  p50: PercentileEstimate;
  p95: PercentileEstimate;
  p99: PercentileEstimate;
}

export function summariseHistogram(h: ArrayLike<number>): LatencySummary | null {
  const count = histogramCount(h);
  if (count === 0) return null;
  return { count, p50: percentile(h, 50)!, p95: percentile(h, 95)!, p99: percentile(h, 99)! };
}
