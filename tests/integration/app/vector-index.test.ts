import { useTestRedis } from '../../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { VectorService } from '@/jobs/embedding/vectors/vector-service';
import { VectorStore, type VectorInput } from '@/jobs/embedding/vectors/vector-store';
import { VectorTenantStore } from '@/jobs/embedding/vectors/vector-tenant-store';
import { exactNearest } from '@/jobs/embedding/vectors/vector-math';
import { readyClient } from '@/lib/redis/connection';
import { makeBullpen } from '../../helpers/make-bullpen';
import { seededRandom } from '@/jobs/shared/seeded-random';

const random = seededRandom(11);
const randomVector = (dims = 16) => Float32Array.from({ length: dims }, () => random() * 2 - 1);
const acme = { orgId: 'acme' };
const globex = { orgId: 'globex', workspaceId: 'w1' };

function inputs(n: number, opts: Partial<VectorInput> = {}, prefix = 'v'): Array<VectorInput & { vector: Float32Array }> {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    text: `text ${prefix}${i}`,
    vector: randomVector(),
    model: 'test-model',
    tenant: acme,
    ...opts,
  })) as Array<VectorInput & { vector: Float32Array }>;
}

describe('vectors in Redis with an in-memory usearch index', () => {
  const server = useTestRedis();
  const open: Bullpen[] = [];
  const bullpen = async (prefix?: string) => {
    const b = makeBullpen(server.redis, prefix ? { prefix } : {});
    open.push(b);
    await readyClient(b.redis);
    return b;
  };

  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });

  it('stores vectors durably with text, tenant and metadata, and skips an unchanged upsert', async () => {
    const b = await bullpen();
    const store = new VectorStore(b.redis, b.keys);
    const [one] = inputs(1, { metadata: { source: 'test' } });
    expect(await store.upsert('docs', one)).toBe('added');
    expect(await store.upsert('docs', one)).toBe('unchanged');
    const got = await store.get('docs', 'v0');
    expect(got).toMatchObject({ id: 'v0', text: 'text v0', model: 'test-model', tenant: acme, metadata: { source: 'test' }, label: 1 });
    expect(Array.from(got!.vector)).toEqual(Array.from(one.vector));
    expect(await store.upsert('docs', { ...one, text: 'changed' })).toBe('replaced');
    const stats = await store.stats('docs');
    expect(stats).toMatchObject({ live: 1, deleted: 1, model: 'test-model', dimensions: 16, shards: 4 });
    expect(await store.namespaces()).toEqual(['docs']);
  });

  it('refuses another model, other dimensions or another tenant’s id, and changes nothing', async () => {
    const b = await bullpen();
    const store = new VectorStore(b.redis, b.keys);
    await store.upsertMany('docs', inputs(2));
    await expect(store.upsert('docs', { ...inputs(1, {}, 'n')[0], model: 'other' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(store.upsert('docs', { ...inputs(1, {}, 'n')[0], vector: randomVector(8) })).rejects.toThrow(/dimensions/);
    await expect(store.upsert('docs', { ...inputs(1)[0], text: 'steal', tenant: globex })).rejects.toThrow(/another tenant/);
    await expect(store.upsert('bad namespace!', inputs(1)[0])).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await store.stats('docs')).live).toBe(2);
    expect((await store.get('docs', 'v0'))!.text).toBe('text v0');
  });

  it('finds the nearest neighbours, filters by tenant and follows deletions', async () => {
    const b = await bullpen();
    const service = new VectorService(new VectorStore(b.redis, b.keys));
    const data = [...inputs(150), ...inputs(50, { tenant: globex }, 'g')];
    await service.store.upsertMany('docs', data);
    const query = data[7].vector;
    const exact = exactNearest(
      data.map((d) => ({ key: d.id, vector: d.vector })),
      query,
      5,
    ).map((n) => n.key);
    const found = await service.search('docs', query, 5);
    expect(found[0]).toEqual({ id: 'v7', similarity: expect.closeTo(1, 4) });
    expect(found.map((f) => f.id)).toEqual(exact);

    const onlyGlobex = await service.search('docs', query, 5, { tenant: globex });
    expect(onlyGlobex).toHaveLength(5);
    expect(onlyGlobex.every((m) => m.id.startsWith('g'))).toBe(true);

    expect(await service.store.delete('docs', 'v7')).toBe(true);
    expect(await service.store.delete('docs', 'v7')).toBe(false);
    expect((await service.search('docs', query, 5)).map((m) => m.id)).not.toContain('v7');
  });

  it('keeps indexes of two processes in step through the change log', async () => {
    const a = await bullpen();
    const other = await bullpen(a.keys.root);
    const writer = new VectorService(new VectorStore(a.redis, a.keys));
    const reader = new VectorService(new VectorStore(other.redis, other.keys));
    const first = inputs(20);
    await writer.store.upsertMany('docs', first);
    expect((await reader.search('docs', first[3].vector, 1))[0].id).toBe('v3');

    const [late] = inputs(1, {}, 'late');
    await writer.store.upsert('docs', late);
    await writer.store.delete('docs', 'v3');
    expect((await reader.search('docs', late.vector, 1))[0].id).toBe('late0');
    expect((await reader.search('docs', first[3].vector, 20)).map((m) => m.id)).not.toContain('v3');
    expect(reader.index('docs').loaded?.size).toBe(20);
  });

  it('answers searches while a rebuild runs, then swaps in the new generation', async () => {
    const b = await bullpen();
    const service = new VectorService(new VectorStore(b.redis, b.keys), { loadBatchSize: 50 });
    const data = inputs(1_000);
    await service.store.upsertMany('docs', data);
    await service.search('docs', data[0].vector, 1);
    for (let i = 0; i < 300; i++) await service.store.delete('docs', `v${i}`);
    expect((await service.store.stats('docs')).deletedRatio).toBeCloseTo(0.3);

    const compacting = service.compact('docs');
    let searchedDuringRebuild = 0;
    while (!service.index('docs').rebuilding) await new Promise((r) => setImmediate(r));
    while (service.index('docs').rebuilding) {
      const [hit] = await service.search('docs', data[500].vector, 1);
      expect(hit.id).toBe('v500');
      searchedDuringRebuild++;
    }
    await compacting;
    expect(searchedDuringRebuild).toBeGreaterThan(0);
    const stats = await service.store.stats('docs');
    expect(stats).toMatchObject({ live: 700, deleted: 0, generation: 1 });
    expect(service.index('docs').loaded).toMatchObject({ generation: 1, size: 700 });
  });

  it('reloads when the capped change log no longer reaches back to its position', async () => {
    const a = await bullpen();
    const other = await bullpen(a.keys.root);
    const writer = new VectorStore(a.redis, a.keys);
    const reader = new VectorService(new VectorStore(other.redis, other.keys));
    await writer.upsertMany('docs', inputs(5));
    await reader.search('docs', randomVector(), 1);
    // Trim the log as its cap would after 10,000 changes.
    const [late] = inputs(1, {}, 'late');
    await writer.upsert('docs', late);
    await a.redis.xtrim(a.keys.tagged('vec:docs', 'log'), 'MAXLEN', 0);
    const index = reader.index('docs');
    await index.sync();
    while (index.rebuilding) await new Promise((r) => setTimeout(r, 5));
    expect((await reader.search('docs', late.vector, 1))[0].id).toBe('late0');
  });

  it('counts, exports and deletes exactly one tenant’s vectors across namespaces', async () => {
    const b = await bullpen();
    const store = new VectorStore(b.redis, b.keys);
    await store.upsertMany('docs', [...inputs(30), ...inputs(10, { tenant: globex }, 'g')]);
    await store.upsertMany('notes', inputs(5, { tenant: { orgId: 'acme', workspaceId: 'w9' } }, 'n'));
    await store.upsertMany('notes', inputs(3, { tenant: undefined }, 'shared'));
    const tenantStore = new VectorTenantStore(store, 7);

    expect(await tenantStore.countByTenant(acme)).toBe(35);
    expect(await tenantStore.countByTenant({ orgId: 'acme', workspaceId: 'w9' })).toBe(5);
    const exported = [];
    for await (const row of tenantStore.exportByTenant(acme)) exported.push(row);
    expect(exported).toHaveLength(35);
    expect(exported[0]).toMatchObject({ namespace: 'docs', model: 'test-model', dimensions: 16, tenant: acme });
    expect((exported[0].vector as number[]).length).toBe(16);

    expect(await tenantStore.deleteByTenant(acme)).toBe(35);
    expect(await tenantStore.deleteByTenant(acme)).toBe(0);
    expect(await tenantStore.countByTenant(acme)).toBe(0);
    expect(await tenantStore.countByTenant(globex)).toBe(10);
    expect((await store.stats('notes')).live).toBe(3);
  });
});
