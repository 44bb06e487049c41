import { describe, expect, it } from 'vitest';
import { bestImbalance, planTransfers, shardImbalance, shardOf } from '@/jobs/embedding/vectors/shards';
import { decodeVector, encodeVector } from '@/jobs/embedding/vectors/vector-codec';
import { cosine, exactNearest, l2normalize } from '@/jobs/embedding/vectors/vector-math';

describe('vector shards', () => {
  it('places an id on the same shard every time and spreads ids evenly', () => {
    expect(shardOf('memory-42', 4)).toBe(shardOf('memory-42', 4));
    const sizes = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) sizes[shardOf(`id-${i}`, 4)]++;
    for (const s of sizes) expect(s).toBeGreaterThan(850);
    expect(shardImbalance(sizes)).toBeLessThan(0.15);
  });

  it('refuses a shard count that is not a positive integer', () => {
    expect(() => shardOf('x', 0)).toThrow(/positive integer/);
  });

  it('measures imbalance as (max − min) / mean', () => {
    expect(shardImbalance([10, 10, 10, 10])).toBe(0);
    expect(shardImbalance([20, 10, 10, 0])).toBe(2);
    expect(shardImbalance([])).toBe(0);
    expect(shardImbalance([0, 0])).toBe(0);
    expect(bestImbalance(10, 4)).toBeCloseTo(0.4);
    expect(bestImbalance(12, 4)).toBe(0);
  });

  it('plans the fewest moves that leave shards within one of each other', () => {
    const sizes = [40, 5, 30, 5];
    const plan = planTransfers(sizes);
    const after = [...sizes];
    for (const t of plan) {
      after[t.from] -= t.count;
      after[t.to] += t.count;
    }
    expect(Math.max(...after) - Math.min(...after)).toBeLessThanOrEqual(1);
    expect(after.reduce((a, b) => a + b)).toBe(80);
    // 80 / 4 = 20 each: 20 leave shard 0, 10 leave shard 2.
    expect(plan.reduce((n, t) => n + t.count, 0)).toBe(30);
    expect(planTransfers(sizes)).toEqual(plan);
  });

  it('plans nothing for shards already as even as they can be', () => {
    expect(planTransfers([3, 3, 2, 2])).toEqual([]);
    expect(planTransfers([0, 0, 0])).toEqual([]);
    expect(planTransfers([7])).toEqual([]);
  });
});

describe('vector codec and maths', () => {
  it('round-trips float32 vectors through little-endian bytes', () => {
    const v = Float32Array.from([0.5, -1.25, 3.0e-8, 42]);
    const buf = encodeVector(v);
    expect(buf.length).toBe(16);
    expect(buf.readFloatLE(4)).toBe(-1.25);
    expect(Array.from(decodeVector(buf))).toEqual(Array.from(v));
    expect(() => decodeVector(Buffer.alloc(5))).toThrow(/multiple of 4/);
  });

  it('normalises, compares and ranks by cosine similarity', () => {
    const a = Float32Array.from([3, 4]);
    expect(Array.from(l2normalize(a))).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(cosine(a, Float32Array.from([6, 8]))).toBeCloseTo(1);
    expect(cosine(a, Float32Array.from([0, 0]))).toBe(0);
    const items = [
      { key: 'x', vector: Float32Array.from([1, 0]) },
      { key: 'y', vector: Float32Array.from([0, 1]) },
      { key: 'xy', vector: Float32Array.from([1, 1]) },
    ];
    expect(exactNearest(items, Float32Array.from([1, 0.1]), 2).map((n) => n.key)).toEqual(['x', 'xy']);
  });
});
