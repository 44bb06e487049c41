import { useTestRedis } from '../../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { planTransfers, shardOf } from '@/jobs/embedding/vectors/shards';
import type { VectorStore } from '@/jobs/embedding/vectors/vector-store';
import { jobType, storesOf } from '../../helpers/shipped-jobs';
import { readyClient } from '@/lib/redis/connection';
import { createIndexOptimizationHandler } from '@/jobs/index-ops/index-optimization';
import { createIndexRebalanceHandler } from '@/jobs/index-ops/index-rebalance';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';

const optimization = (d: Record<string, unknown> = {}) => jobType('index-optimization').schema.parse(d);
const rebalance = (d: Record<string, unknown> = {}) => jobType('index-rebalance').schema.parse(d);

/** A deterministic 8-d vector per index, so two namespaces get the same data. */
const vectorOf = (i: number) => Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * 7.1 + d * 1.3));

async function fill(store: VectorStore, namespace: string, n: number): Promise<void> {
  const all = Array.from({ length: n }, (_, i) => ({
    id: `v${i}`,
    text: `t${i}`,
    vector: vectorOf(i),
    model: 'm',
    tenant: { orgId: 'acme' },
  }));
  for (let i = 0; i < all.length; i += 100) await store.upsertMany(namespace, all.slice(i, i + 100));
}

async function shardMembers(b: Bullpen, namespace: string, shards: number): Promise<string[][]> {
  const out: string[][] = [];
  for (let s = 0; s < shards; s++) out.push(await b.redis.zrange(b.keys.tagged(`vec:${namespace}`, 'shard', s), 0, -1));
  return out;
}

describe('index-optimization and index-rebalance', () => {
  const server = useTestRedis();
  const open: Bullpen[] = [];
  async function bullpen() {
    const b = makeBullpen(server.redis);
    open.push(b);
    await readyClient(b.redis);
    return b;
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });

  it('rebuilds a namespace past the deleted ratio, reports before and after, and skips the others', async () => {
    const b = await bullpen();
    const vectors = storesOf(b).vectors;
    await fill(vectors.store, 'busy', 200);
    await fill(vectors.store, 'calm', 50);
    await vectors.search('busy', vectorOf(150), 1);
    for (let i = 0; i < 60; i++) await vectors.store.delete('busy', `v${i}`);
    await vectors.store.delete('calm', 'v0');

    const ctx = makeJobContext('index-optimization', optimization());
    const result = await createIndexOptimizationHandler(storesOf(b))(ctx);
    expect(result.threshold).toBe(0.2);
    expect(result.namespaces).toEqual([
      {
        namespace: 'busy',
        action: 'rebuilt',
        before: { live: 140, deleted: 60, deletedRatio: 0.3, generation: 0 },
        after: { live: 140, deleted: 0, deletedRatio: 0, generation: 1 },
      },
      {
        namespace: 'calm',
        action: 'skipped',
        before: { live: 49, deleted: 1, deletedRatio: 0.02, generation: 0 },
        after: { live: 49, deleted: 1, deletedRatio: 0.02, generation: 0 },
      },
    ]);
    expect(vectors.index('busy').loaded).toMatchObject({ generation: 1, size: 140 });
    expect((await vectors.search('busy', vectorOf(150), 1))[0].id).toBe('v150');
    expect(ctx.progressReports.map((p) => p.phase)).toEqual(['optimizing', 'optimizing', 'optimizing', 'complete']);
  });

  it('leaves the same state when run twice', async () => {
    const b = await bullpen();
    const vectors = storesOf(b).vectors;
    await fill(vectors.store, 'busy', 100);
    for (let i = 0; i < 50; i++) await vectors.store.delete('busy', `v${i}`);
    const handler = createIndexOptimizationHandler(storesOf(b));
    const ctx = makeJobContext('index-optimization', optimization({ namespace: 'busy' }));
    const first = await handler(ctx);
    const stats = await vectors.store.stats('busy');
    expect(
      await handler(makeJobContext('index-optimization', optimization({ namespace: 'busy' }), { jobId: ctx.jobId, attempt: 2 })),
    ).toEqual(first);
    const replay = await handler(makeJobContext('index-optimization', optimization({ namespace: 'busy' })));
    expect(replay.namespaces[0].action).toBe('skipped');
    expect(await vectors.store.stats('busy')).toEqual(stats);
  });

  it('moves the fewest vectors to even out shards drained by deletions, and searches still find every vector', async () => {
    const b = await bullpen();
    const vectors = storesOf(b).vectors;
    await fill(vectors.store, 'docs', 400);
    // Drain shard 0: delete the vectors its hash placed there.
    const onShard0 = Array.from({ length: 400 }, (_, i) => `v${i}`).filter((id) => shardOf(id, 4) === 0);
    for (const id of onShard0) await vectors.store.delete('docs', id);
    const before = await vectors.store.stats('docs');
    expect(before.shardSizes[0]).toBe(0);
    expect(before.imbalance).toBeGreaterThan(0.3);

    const ctx = makeJobContext('index-rebalance', rebalance({ namespace: 'docs' }));
    const [outcome] = (await createIndexRebalanceHandler(storesOf(b))(ctx)).namespaces;
    const after = await vectors.store.stats('docs');
    expect(outcome).toMatchObject({ namespace: 'docs', action: 'rebalanced', before: { shardSizes: before.shardSizes } });
    expect(Math.max(...after.shardSizes) - Math.min(...after.shardSizes)).toBeLessThanOrEqual(1);
    expect(outcome.after.imbalance).toBeLessThanOrEqual(0.3);
    // The plan's count exactly, and at least the emptied shard's fair share.
    expect(outcome.moved).toBe(planTransfers(before.shardSizes).reduce((n, t) => n + t.count, 0));
    expect(outcome.moved).toBeGreaterThanOrEqual(Math.floor(before.live / 4));
    expect(after.live).toBe(before.live);
    expect(after.generation).toBe(before.generation + 1);
    // Every live vector is still found, from whichever shard it now sits in.
    for (const i of [1, 77, 250, 399].filter((i) => !onShard0.includes(`v${i}`))) {
      expect((await vectors.search('docs', vectorOf(i), 1))[0].id).toBe(`v${i}`);
    }
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });
  });

  it('skips a namespace that is balanced or as even as it can be', async () => {
    const b = await bullpen();
    const vectors = storesOf(b).vectors;
    // v0..v9 hash to shards of 3, 2, 2, 3: an imbalance of 0.4, the best 10 vectors allow.
    await fill(vectors.store, 'tiny', 10);
    const handler = createIndexRebalanceHandler(storesOf(b));
    const [outcome] = (await handler(makeJobContext('index-rebalance', rebalance({ namespace: 'tiny', threshold: 0.01 })))).namespaces;
    expect(outcome).toMatchObject({
      action: 'skipped',
      reason: 'already-as-even-as-possible',
      moved: 0,
      before: { shardSizes: [3, 2, 2, 3], imbalance: 0.4 },
    });
    expect((await vectors.store.stats('tiny')).generation).toBe(0);
    const [again] = (await handler(makeJobContext('index-rebalance', rebalance({ namespace: 'tiny', threshold: 0.99 })))).namespaces;
    expect(again).toMatchObject({ action: 'skipped', reason: 'below-threshold' });
  });

  it('finishes the same plan after a crash midway, ending where a single run ends', async () => {
    const drain = async (b: Bullpen) => {
      const vectors = storesOf(b).vectors;
      await fill(vectors.store, 'docs', 400);
      for (let i = 0; i < 400; i++) if (shardOf(`v${i}`, 4) === 2) await vectors.store.delete('docs', `v${i}`);
    };
    const once = await bullpen();
    await drain(once);
    await createIndexRebalanceHandler(storesOf(once))(makeJobContext('index-rebalance', rebalance({ namespace: 'docs' })));

    const b = await bullpen();
    await drain(b);
    const handler = createIndexRebalanceHandler(storesOf(b));
    const abort = new AbortController();
    const dying = makeJobContext('index-rebalance', rebalance({ namespace: 'docs' }), { signal: abort.signal });
    const report = dying.progress;
    dying.progress = async (percent, phase, detail) => {
      await report(percent, phase, detail);
      if (detail?.transfer === 1) abort.abort(new Error('worker killed'));
    };
    await expect(handler(dying)).rejects.toThrow();
    const partial = await storesOf(b).vectors.store.stats('docs');
    expect(Math.max(...partial.shardSizes) - Math.min(...partial.shardSizes)).toBeGreaterThan(1);

    const result = await handler(makeJobContext('index-rebalance', rebalance({ namespace: 'docs' }), { jobId: dying.jobId, attempt: 2 }));
    expect(result.namespaces[0].action).toBe('rebalanced');
    expect(await shardMembers(b, 'docs', 4)).toEqual(await shardMembers(once, 'docs', 4));
    // And a replay finds nothing to do.
    const replay = await handler(makeJobContext('index-rebalance', rebalance({ namespace: 'docs' })));
    expect(replay.namespaces[0]).toMatchObject({ action: 'skipped', moved: 0 });
    expect(await shardMembers(b, 'docs', 4)).toEqual(await shardMembers(once, 'docs', 4));
  });
});
