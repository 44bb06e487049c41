import { useTestRedis } from '../../helpers/use-test-redis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { MemoryTenantStore } from '@/jobs/memory/memories/memory-tenant-store';
import { readyClient } from '@/lib/redis/connection';
import { makeBullpen } from '../../helpers/make-bullpen';

const acme = { orgId: 'acme', workspaceId: 'w1' };

describe('the memory store', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let store: MemoryStore;

  beforeEach(async () => {
    bullpen = makeBullpen(server.redis);
    await readyClient(bullpen.redis);
    store = new MemoryStore(bullpen.redis, bullpen.keys);
  });
  afterEach(async () => {
    await bullpen.close();
  });

  it('creates, reads, updates and deletes a memory with its tenant', async () => {
    const m = await store.create({ id: 'm1', kind: 'episodic', content: 'Likes tea', importance: 0.7, tenant: acme, userId: 'u1' }, 1_000);
    expect(m).toMatchObject({ id: 'm1', metadata: {}, createdAt: 1_000, updatedAt: 1_000 });
    expect(await store.get('m1')).toEqual(m);
    await expect(store.create({ id: 'm1', kind: 'episodic', content: 'again', importance: 0.1, tenant: acme })).rejects.toMatchObject({
      code: 'CONFLICT',
    });

    const updated = await store.update('m1', { importance: 0.25, metadata: { source: 'chat' } }, 2_000);
    expect(updated).toMatchObject({ importance: 0.25, metadata: { source: 'chat' }, updatedAt: 2_000, content: 'Likes tea' });
    expect(await store.touch('m1', 3_000)).toBe(true);
    expect((await store.get('m1'))!.accessedAt).toBe(3_000);

    expect(await store.delete('m1')).toBe(true);
    expect(await store.get('m1')).toBeUndefined();
    expect(await store.count(acme)).toBe(0);
    await expect(store.update('m1', { importance: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // An update must not resurrect the deleted memory as a partial hash.
    expect(await bullpen.redis.exists(store.memoryKey('m1'))).toBe(0);
  });

  it('refuses bad input with a clear VALIDATION error and writes nothing', async () => {
    await expect(store.create({ kind: 'episodic', content: '', importance: 0.5, tenant: acme })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(store.create({ kind: 'episodic', content: 'x', importance: 1.5, tenant: acme })).rejects.toThrow(/importance/);
    await expect(store.create({ id: 'has space', kind: 'episodic', content: 'x', importance: 0.5, tenant: acme })).rejects.toThrow(
      /letters, digits/,
    );
    expect(await store.count()).toBe(0);
    await expect(store.count({ workspaceId: 'w1' })).rejects.toThrow(/needs its orgId/);
  });

  it('pages a scope oldest first without skipping while deleting, by kind and tenant', async () => {
    for (let i = 0; i < 25; i++) {
      await store.create(
        {
          id: `e${i}`,
          kind: i % 5 === 0 ? 'semantic' : 'episodic',
          content: `m ${i}`,
          importance: 0.5,
          tenant: i < 20 ? acme : { orgId: 'globex' },
          sourceIds: i % 5 === 0 ? ['x'] : undefined,
          createdAt: 1_000 + (i % 3),
        },
        5_000,
      );
    }
    expect(await store.count()).toBe(25);
    expect(await store.count({ orgId: 'acme' })).toBe(20);
    expect(await store.count(acme, 'semantic')).toBe(4);

    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await store.page({ orgId: 'acme' }, { after, limit: 6, kind: 'episodic' });
      seen.push(...page.items.map((m) => m.id));
      // Deleting what was just read must not disturb the walk.
      await store.deleteMany(page.items.slice(0, 2));
      after = page.next;
    } while (after);
    expect(seen).toHaveLength(16);
    expect(new Set(seen).size).toBe(16);
    // createdAt is 1000 + i % 3: the walk is oldest first.
    const ages = seen.map((id) => Number(id.slice(1)) % 3);
    expect(ages).toEqual([...ages].sort());
  });

  it('exports and deletes exactly one tenant’s memories as a TenantScopedStore', async () => {
    for (let i = 0; i < 12; i++) await store.create({ kind: 'episodic', content: `a${i}`, importance: 0.5, tenant: acme });
    for (let i = 0; i < 3; i++)
      await store.create({ kind: 'episodic', content: `b${i}`, importance: 0.5, tenant: { orgId: 'acme', workspaceId: 'w2' } });
    for (let i = 0; i < 4; i++) await store.create({ kind: 'episodic', content: `g${i}`, importance: 0.5, tenant: { orgId: 'globex' } });
    const tenantStore = new MemoryTenantStore(store, 5);
    expect(await tenantStore.countByTenant(acme)).toBe(12);
    expect(await tenantStore.countByTenant({ orgId: 'acme' })).toBe(15);
    const rows = [];
    for await (const row of tenantStore.exportByTenant(acme)) rows.push(row);
    expect(rows.map((r) => r.content).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `a${i}`).sort());

    expect(await tenantStore.deleteByTenant({ orgId: 'acme' })).toBe(15);
    expect(await tenantStore.deleteByTenant({ orgId: 'acme' })).toBe(0);
    expect(await tenantStore.countByTenant({ orgId: 'acme' })).toBe(0);
    expect(await store.count({ orgId: 'globex' })).toBe(4);
    expect(await store.count()).toBe(4);
  });
});
