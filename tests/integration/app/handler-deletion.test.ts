import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { Tenant } from '@/lib/jobs/tenant';
import { readyClient } from '@/lib/redis/connection';
import { DeletionReceipts } from '@/jobs/maintenance/deletion/deletion-receipts';
import { TenantEraser } from '@/jobs/maintenance/deletion/tenant-eraser';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import { tenantStores } from '@/jobs/tenant-stores';
import { createDataDeletionHandler } from '@/jobs/maintenance/data-deletion';
import { createDataExportHandler } from '@/jobs/maintenance/data-export';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { seedTenantData } from '../../fixtures/app/tenant-data';

const acme = { orgId: 'acme' };
const globex = { orgId: 'globex' };

let bullpen: Bullpen;
let dataDir: string;

const server = useTestRedis();
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-deletion-'));
  bullpen = makeBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  await seedTenantData(bullpen, 'acme', ['ws1', 'ws2']);
  await seedTenantData(bullpen, 'globex', ['lab']);
  // Exports are copies of tenant data, so they count too.
  await createDataExportHandler(storesOf(bullpen))(makeJobContext('data-export', acme));
  await createDataExportHandler(storesOf(bullpen))(makeJobContext('data-export', { orgId: 'acme', workspaceId: 'ws2' }));
  await createDataExportHandler(storesOf(bullpen))(makeJobContext('data-export', globex));
});
afterEach(async () => {
  await bullpen.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function counts(tenant: Tenant): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of tenantStores(storesOf(bullpen))) out[s.name] = await s.countByTenant(tenant);
  return out;
}

/** Every record of a tenant, per store: what "untouched" is compared on. */
async function snapshot(tenant: Tenant): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const s of tenantStores(storesOf(bullpen))) {
    out[s.name] = [];
    for await (const r of s.exportByTenant(tenant)) out[s.name].push(r);
  }
  return out;
}

/** Redis keys whose name mentions the org (indexes, counters): none may survive its deletion. */
async function keysNaming(orgId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await bullpen.redis.call('SCAN', cursor, 'MATCH', `${bullpen.keys.root}:*${orgId}*`, 'COUNT', '1000')) as [
      string,
      string[],
    ];
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

describe('data-deletion', () => {
  it('leaves zero records of the tenant in every store and the other tenant untouched; a second run changes nothing', async () => {
    const before = await counts(acme);
    // Every store holds some of acme's data, so the zeros below cover every store.
    for (const [store, n] of Object.entries(before)) expect(n, store).toBeGreaterThan(0);
    const other = await snapshot(globex);
    for (const [store, records] of Object.entries(other)) expect(records.length, store).toBeGreaterThan(0);

    const ctx = makeJobContext('data-deletion', { orgId: 'acme', reason: 'contract ended' }, { jobId: 'erase-1' });
    const result = await createDataDeletionHandler(storesOf(bullpen))(ctx);

    expect(result.complete).toBe(true);
    expect(Object.values(result.remaining).every((n) => n === 0)).toBe(true);
    expect(Object.keys(result.remaining).sort()).toEqual(
      tenantStores(storesOf(bullpen))
        .map((s) => s.name)
        .sort(),
    );
    for (const [store, n] of Object.entries(before)) {
      // The audit stream got its own deletion event: more than was counted before is fine.
      if (store !== 'audit') expect(result.deleted[store], store).toBe(n);
    }
    expect(Object.values(await counts(acme)).every((n) => n === 0)).toBe(true);
    expect(await counts({ orgId: 'acme', workspaceId: 'ws1' })).toEqual(Object.fromEntries(Object.keys(before).map((k) => [k, 0])));
    expect(await keysNaming('acme')).toEqual([]);
    expect(await snapshot(globex)).toEqual(other);

    const phases = ctx.progressReports.map((p) => p.phase);
    expect(phases.filter((p) => p === 'deleting').length).toBeGreaterThan(tenantStores(storesOf(bullpen)).length);
    expect(phases.filter((p) => p === 'verifying')).toHaveLength(tenantStores(storesOf(bullpen)).length);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    // The receipt and one untagged audit entry record it.
    expect(await new DeletionReceipts(bullpen.redis, bullpen.keys).get('erase-1')).toMatchObject({
      tenant: acme,
      reason: 'contract ended',
    });
    const page = await bullpen.audit.page({ limit: 500 });
    expect(page.entries.filter((e) => e.action === 'tenant.delete')).toHaveLength(1);
    expect(page.entries.find((e) => e.action === 'tenant.delete')!.tenant).toBeUndefined();

    // The retry of the same job: nothing to delete, still zero, still one audit entry.
    const again = await createDataDeletionHandler(storesOf(bullpen))(
      makeJobContext('data-deletion', { orgId: 'acme' }, { jobId: 'erase-1', attempt: 2 }),
    );
    expect(Object.values(again.deleted).every((n) => n === 0)).toBe(true);
    expect(again.complete).toBe(true);
    expect((await bullpen.audit.page({ limit: 500 })).entries.filter((e) => e.action === 'tenant.delete')).toHaveLength(1);
    expect(await snapshot(globex)).toEqual(other);
  });

  it('deletes one workspace and leaves the organisation’s other data', async () => {
    const ws1 = { orgId: 'acme', workspaceId: 'ws1' };
    const ws2Before = await snapshot({ orgId: 'acme', workspaceId: 'ws2' });
    const orgBefore = await counts(acme);
    const ws1Before = await counts(ws1);

    const result = await createDataDeletionHandler(storesOf(bullpen))(makeJobContext('data-deletion', ws1));
    expect(result.complete).toBe(true);
    expect(Object.values(await counts(ws1)).every((n) => n === 0)).toBe(true);
    expect(await snapshot({ orgId: 'acme', workspaceId: 'ws2' })).toEqual(ws2Before);
    const orgAfter = await counts(acme);
    for (const store of Object.keys(orgBefore)) {
      if (store === 'audit') continue;
      expect(orgAfter[store], store).toBe(orgBefore[store] - ws1Before[store]);
    }
  });

  it('fails, retryably, when data remains after deletion', async () => {
    // A store whose deletion a concurrent writer keeps undoing.
    let records = 3;
    const racing: TenantScopedStore = {
      name: 'racing',
      countByTenant: async () => records,
      deleteByTenant: async () => {
        const n = records;
        records = 1;
        return n;
      },
      exportByTenant: async function* () {},
    };
    const report = await new TenantEraser([...tenantStores(storesOf(bullpen)), racing]).erase(acme);
    expect(report.complete).toBe(false);
    expect(report.remaining.racing).toBe(1);
    expect(report.remaining.sessions).toBe(0);
    expect(() => new TenantEraser([racing, racing])).toThrow(/unique/);
  });
});
