import { describe, expect, it } from 'vitest';
import {
  bucketBounds,
  bucketOf,
  emptyHistogram,
  HISTOGRAM_BUCKETS,
  histogramCount,
  mergeInto,
  percentile,
  summariseHistogram,
} from '@/lib/metrics/history-buckets';

function histogramOf(values: number[]) {
  const h = emptyHistogram();
  for (const v of values) h[bucketOf(v)]++;
  return h;
}

/** The exact nearest-rank percentile of raw values, the reference the estimate is held to. */
function exact(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe('bucketOf / bucketBounds', () => {
  it('puts every value inside the bounds of its bucket', () => {
    for (const v of [0, 0.3, 1, 1.01, 1.2589, 1.26, 7, 10, 10.0001, 99, 100, 1_000, 12_345, 3_600_000, 7.9e7]) {
      const { lower, upper } = bucketBounds(bucketOf(v));
      expect(v === 0 || v > lower, `${v} above ${lower}`).toBe(true);
      expect(v, `${v} ≤ ${upper}`).toBeLessThanOrEqual(upper);
    }
  });

  it('spaces buckets ten per decade with exact decades as upper bounds', () => {
    expect(bucketOf(1)).toBe(0);
    expect(bucketOf(10)).toBe(10);
    expect(bucketOf(10.01)).toBe(11);
    expect(bucketOf(100)).toBe(20);
    expect(bucketOf(1_000)).toBe(30);
    expect(bucketBounds(20)).toEqual({ lower: 10 ** 1.9, upper: 100 });
    expect(bucketBounds(21).upper / bucketBounds(21).lower).toBeCloseTo(10 ** 0.1, 10);
  });

  it('clamps negative, NaN and huge values to the end buckets', () => {
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(Number.NaN)).toBe(0);
    expect(bucketOf(1e12)).toBe(HISTOGRAM_BUCKETS - 1);
    expect(bucketOf(Number.POSITIVE_INFINITY)).toBe(HISTOGRAM_BUCKETS - 1);
    expect(bucketBounds(HISTOGRAM_BUCKETS - 1).upper).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('percentile', () => {
  it('is null for an empty histogram and refuses p outside (0, 100]', () => {
    expect(percentile(emptyHistogram(), 50)).toBeNull();
    expect(summariseHistogram(emptyHistogram())).toBeNull();
    expect(() => percentile(emptyHistogram(), 0)).toThrow(/\(0, 100\]/);
    expect(() => percentile(emptyHistogram(), 101)).toThrow(/\(0, 100\]/);
  });

  it('lands in the bucket of the exact percentile, so within a factor of 1.26 of it', () => {
    // A spread like a real queue's: mostly fast, a slow tail.
    const values: number[] = [];
    for (let i = 0; i < 900; i++) values.push(20 + (i % 30));
    for (let i = 0; i < 90; i++) values.push(400 + i * 3);
    for (let i = 0; i < 10; i++) values.push(5_000 + i * 100);
    const h = histogramOf(values);
    for (const p of [50, 90, 95, 99, 100]) {
      const est = percentile(h, p)!;
      const truth = exact(values, p);
      expect(bucketOf(est.ms), `p${p}: ${est.ms} vs ${truth}`).toBe(bucketOf(truth));
      expect(est.ms / truth).toBeGreaterThan(1 / 1.26);
      expect(est.ms / truth).toBeLessThan(1.26);
      expect(est.atLeast).toBe(false);
    }
  });

  it('interpolates by rank inside a bucket: the more of the bucket the rank passes, the higher', () => {
    const h = emptyHistogram();
    h[20] = 100; // all in (79.4, 100] ms
    const p10 = percentile(h, 10)!.ms;
    const p90 = percentile(h, 90)!.ms;
    expect(p10).toBeGreaterThan(bucketBounds(20).lower);
    expect(p90).toBeGreaterThan(p10);
    expect(percentile(h, 100)!.ms).toBeCloseTo(100, 9);
  });

  it('says "at least" for a rank in the overflow bucket', () => {
    const h = histogramOf([10, 10, 2e8]);
    expect(percentile(h, 99)).toEqual({ ms: bucketBounds(HISTOGRAM_BUCKETS - 1).lower, atLeast: true });
    expect(percentile(h, 50)!.atLeast).toBe(false);
  });

  it('interpolates linearly in bucket 0 (0..1 ms)', () => {
    const h = emptyHistogram();
    h[0] = 4;
    expect(percentile(h, 50)!.ms).toBeCloseTo(0.5, 9);
  });
});

describe('mergeInto / summariseHistogram', () => {
  it('adds hours bucket by bucket: the merged percentiles are those of all values together', () => {
    const a = [5, 6, 7, 8, 9];
    const b = [500, 600, 700, 800, 900];
    const merged = mergeInto(histogramOf(a), histogramOf(b));
    expect(merged).toEqual(histogramOf([...a, ...b]));
    const s = summariseHistogram(merged)!;
    expect(s.count).toBe(10);
    expect(histogramCount(merged)).toBe(10);
    expect(bucketOf(s.p50.ms)).toBe(bucketOf(9));
    expect(bucketOf(s.p95.ms)).toBe(bucketOf(900));
    expect(bucketOf(s.p99.ms)).toBe(bucketOf(900));
  });
});
