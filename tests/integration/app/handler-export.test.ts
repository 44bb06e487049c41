import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { PermanentError } from '@/lib/errors/permanent-error';
import { readyClient } from '@/lib/redis/connection';
import { exportableStores } from '@/jobs/tenant-stores';
import { createAuditExportHandler } from '@/jobs/maintenance/audit-export';
import { createDataExportHandler } from '@/jobs/maintenance/data-export';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { seedTenantData } from '../../fixtures/app/tenant-data';

let bullpen: Bullpen;
let dataDir: string;

const server = useTestRedis();
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-export-'));
  bullpen = makeBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  await seedTenantData(bullpen, 'acme', ['ws1', 'ws2']);
  await seedTenantData(bullpen, 'globex', ['lab']);
});
afterEach(async () => {
  await bullpen.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function readLines(file: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The tenant a record names, wherever a store keeps it. */
function orgOf(record: Record<string, unknown>): string | undefined {
  return (record.tenant as { orgId?: string } | undefined)?.orgId;
}

describe('data-export', () => {
  it('writes every store’s records of the tenant to JSONL with a manifest; a second run changes nothing', async () => {
    const stores = exportableStores(storesOf(bullpen));
    const expected = Object.fromEntries(
      await Promise.all(stores.map(async (s) => [s.name, await s.countByTenant({ orgId: 'acme' })] as const)),
    );
    const ctx = makeJobContext('data-export', { orgId: 'acme' }, { jobId: 'export-1' });
    const result = await createDataExportHandler(storesOf(bullpen))(ctx);

    expect(result.dir).toBe(path.join(dataDir, 'exports', 'acme', 'data-export-1'));
    const files = (await readdir(result.dir)).sort();
    expect(files).toEqual([...stores.map((s) => `${s.name}.jsonl`), 'manifest.json'].sort());
    for (const store of stores) {
      const entry = result.manifest.stores[store.name];
      const lines = await readLines(path.join(result.dir, entry.file));
      expect(lines, store.name).toHaveLength(expected[store.name]);
      expect(entry.records).toBe(expected[store.name]);
      // Every record is acme's, none globex's.
      for (const line of lines) expect(orgOf(line), store.name).toBe('acme');
      const bytes = await readFile(path.join(result.dir, entry.file));
      expect(entry.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(entry.bytes).toBe(bytes.length);
    }
    // Every store had something to export, so this covers them all.
    expect(Object.values(expected).every((n) => n > 0)).toBe(true);
    const manifest = JSON.parse(await readFile(path.join(result.dir, 'manifest.json'), 'utf8')) as typeof result.manifest;
    expect(manifest).toMatchObject({
      kind: 'data',
      tenant: { orgId: 'acme' },
      jobId: 'export-1',
      totalRecords: Object.values(expected).reduce((a, b) => a + b, 0),
    });
    expect(ctx.progressReports.filter((p) => p.phase === 'exporting')).toHaveLength(stores.length + 1);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const mtime = (await stat(path.join(result.dir, 'sessions.jsonl'))).mtimeMs;
    const again = await createDataExportHandler(storesOf(bullpen))(
      makeJobContext('data-export', { orgId: 'acme' }, { jobId: 'export-1', attempt: 2 }),
    );
    expect(again.manifest).toEqual(result.manifest);
    expect((await stat(path.join(result.dir, 'sessions.jsonl'))).mtimeMs).toBe(mtime);
  });

  it('exports one workspace only when asked', async () => {
    const result = await createDataExportHandler(storesOf(bullpen))(makeJobContext('data-export', { orgId: 'acme', workspaceId: 'ws1' }));
    const sessions = await readLines(path.join(result.dir, 'sessions.jsonl'));
    expect(sessions).toHaveLength(4);
    expect(sessions.every((s) => (s.tenant as { workspaceId?: string }).workspaceId === 'ws1')).toBe(true);
    expect(result.manifest.tenant).toEqual({ orgId: 'acme', workspaceId: 'ws1' });
  });

  it('a failed attempt resumes: stores already written are kept, the rest follow', async () => {
    const controller = new AbortController();
    const ctx = makeJobContext('data-export', { orgId: 'acme' }, { jobId: 'export-2', signal: controller.signal });
    const record = ctx.progress;
    ctx.progress = async (percent, phase, detail) => {
      await record(percent, phase, detail);
      // Dies (a timeout, a crash) after the third store is on disk.
      if (ctx.progressReports.filter((p) => p.detail?.store).length === 3) controller.abort(new Error('attempt timed out'));
    };
    await expect(createDataExportHandler(storesOf(bullpen))(ctx)).rejects.toThrow('attempt timed out');
    const dir = path.join(dataDir, 'exports', 'acme', 'data-export-2');
    const progress = JSON.parse(await readFile(path.join(dir, 'progress.json'), 'utf8')) as { done: Record<string, unknown> };
    const done = Object.keys(progress.done);
    expect(done).toHaveLength(3);
    const firstMtime = (await stat(path.join(dir, `${done[0]}.jsonl`))).mtimeMs;
    await expect(stat(path.join(dir, 'manifest.json'))).rejects.toThrow();

    const retry = makeJobContext('data-export', { orgId: 'acme' }, { jobId: 'export-2', attempt: 2 });
    const result = await createDataExportHandler(storesOf(bullpen))(retry);
    expect(Object.keys(result.manifest.stores)).toHaveLength(exportableStores(storesOf(bullpen)).length);
    expect((await stat(path.join(dir, `${done[0]}.jsonl`))).mtimeMs).toBe(firstMtime);
    // Only the remaining stores were written by the retry.
    expect(retry.progressReports.filter((p) => p.detail?.store)).toHaveLength(exportableStores(storesOf(bullpen)).length - 3);
    await expect(stat(path.join(dir, 'progress.json'))).rejects.toThrow();
    expect((await readdir(dir)).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('refuses to export another organisation than the job’s', async () => {
    await expect(
      createDataExportHandler(storesOf(bullpen))(makeJobContext('data-export', { orgId: 'globex' }, { tenant: { orgId: 'acme' } })),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});

describe('audit-export', () => {
  it('writes the organisation’s audit entries in the time range', async () => {
    // The stream orders by insertion time: note the time before each append.
    const stamps: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 5));
      stamps.push(Date.now());
      await bullpen.audit.append({ actor: 'bob', action: 'job.retry', target: { kind: 'job', id: `j${i}` }, tenant: { orgId: 'acme' } });
    }
    const from = new Date(stamps[1]).toISOString();
    const to = new Date(stamps[4] - 1).toISOString();
    const ctx = makeJobContext('audit-export', { orgId: 'acme', from, to });
    const result = await createAuditExportHandler(storesOf(bullpen))(ctx);
    expect(result.manifest.stores.audit.records).toBe(3);
    const lines = await readLines(path.join(result.dir, 'audit.jsonl'));
    expect(lines.map((l) => (l.target as { id: string }).id)).toEqual(['j1', 'j2', 'j3']);
    expect(result.manifest.range).toEqual({ from: stamps[1], to: stamps[4] - 1 });
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const all = await createAuditExportHandler(storesOf(bullpen))(makeJobContext('audit-export', { orgId: 'acme' }));
    // Three seeded entries (org and two workspaces) plus the five above; none of globex.
    expect(all.manifest.stores.audit.records).toBe(8);
  });

  it('refuses a range whose start is after its end', async () => {
    await expect(
      createAuditExportHandler(storesOf(bullpen))(
        makeJobContext('audit-export', { orgId: 'acme', from: '2025-02-01T00:00:00Z', to: '2025-01-01T00:00:00Z' }),
      ),
    ).rejects.toBeInstanceOf(PermanentError);
  });
});
