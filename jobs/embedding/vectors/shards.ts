/**
 * How a namespace's vectors are split into shards. A shard is one in-process ANN graph;
 * a search asks every shard and merges their answers. A new vector goes to the shard
 * its id hashes to, so shards start even; deletions (a tenant's data, a cleanup) can
 * empty one shard more than the others, and then one graph does most of the work.
 * Rebalancing moves vectors from the fullest shards to the emptiest until no two differ
 * by more than one. Everything here is pure: sizes and ids in, a plan out.
 */
import { fnv1a32 } from '../../shared/hash';

/** The shard a new vector is placed in. */
export function shardOf(id: string, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1) {
    throw new Error(`shardCount must be a positive integer, got ${shardCount}`);
  }
  return fnv1a32(id) % shardCount;
}

/**
 * (largest − smallest) / mean of the shard sizes: 0 when even, 1 when the spread equals
 * an average shard. An empty namespace is even.
 */
export function shardImbalance(sizes: readonly number[]): number {
  if (sizes.length === 0) return 0;
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const mean = total / sizes.length;
  return (Math.max(...sizes) - Math.min(...sizes)) / mean;
}

/** The lowest imbalance a namespace of this size can reach: sizes that differ by at most one. */
export function bestImbalance(total: number, shardCount: number): number {
  if (total === 0 || total % shardCount === 0) return 0;
  return 1 / (total / shardCount);
}

export interface ShardTransfer {
  from: number;
  to: number;
  /** Vectors to move. */
  count: number;
}

/**
 * The fewest moves that leave every shard within one of the others, as counts per
 * (from, to) pair; the store picks which vectors. Deterministic: the shards that keep
 * the extra vector of an uneven split are the largest (fewest moves), ties by shard
 * number, and over-full shards are emptied into under-full ones in shard order.
 */
export function planTransfers(sizes: readonly number[]): ShardTransfer[] {
  const n = sizes.length;
  const total = sizes.reduce((a, b) => a + b, 0);
  if (n < 2 || total === 0) return [];
  const base = Math.floor(total / n);
  const bySize = sizes.map((size, shard) => ({ shard, size })).sort((a, b) => b.size - a.size || a.shard - b.shard);
  const target = new Array<number>(n).fill(base);
  for (let i = 0; i < total % n; i++) target[bySize[i].shard] += 1;

  const over = sizes.map((size, s) => ({ shard: s, left: size - target[s] })).filter((x) => x.left > 0);
  const transfers: ShardTransfer[] = [];
  for (let to = 0; to < n; to++) {
    let need = target[to] - sizes[to];
    while (need > 0) {
      const donor = over.find((x) => x.left > 0);
      if (!donor) break;
      const count = Math.min(need, donor.left);
      transfers.push({ from: donor.shard, to, count });
      donor.left -= count;
      need -= count;
    }
  }
  return transfers;
}
