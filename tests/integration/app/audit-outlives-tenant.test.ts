import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shippedApp } from '@/jobs/shipped-app';
import { createDataDeletionHandler } from '@/jobs/maintenance/data-deletion';
import type { Bullpen } from '@/lib/bullpen';
import { storesOf } from '../../helpers/shipped-jobs';
import { makeJobContext } from '../../helpers/job-context';
import { useTestRedis } from '../../helpers/use-test-redis';

/**
 * Issue 21 item 2: a data-deletion erased the tenant's audit entries, the operator's own
 * `job.add` of the deletion included, so nothing linked the deletion to the operator.
 * The audit is the operators' record: a deletion keeps every entry and forgets the ids
 * behind its pseudonyms (docs/decisions/0010-audit-outlives-tenants.md).
 */
const server = useTestRedis(shippedApp);
let dataDir: string;
let bullpen: Bullpen;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-audit-'));
  bullpen = await server.readyBullpen({ env: { BULLPEN_DATA_DIR: dataDir } });
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function rawStream(b: Bullpen): Promise<string> {
  return JSON.stringify(await b.redis.xrange(b.keys.tagged('audit', 'stream'), '-', '+'));
}

describe('a tenant deletion and the audit', () => {
  it('keeps every entry, the operator’s add of the deletion linked to it by a stable pseudonym; nothing names the tenant', async () => {
    await bullpen.audit.append({
      actor: 'ada',
      action: 'job.add',
      target: { kind: 'job', id: 'data-deletion/7' },
      tenant: { orgId: 'acme' },
    });
    await bullpen.audit.append({
      actor: 'olivia',
      action: 'dlq.replay',
      target: { kind: 'dead-letter', id: 'd1' },
      tenant: { orgId: 'acme', workspaceId: 'ws1' },
    });
    await bullpen.audit.append({ actor: 'olivia', action: 'job.retry', target: { kind: 'job', id: 'q/1' }, tenant: { orgId: 'globex' } });
    // While the tenant exists, pages show its ids.
    expect((await bullpen.audit.page()).entries.map((e) => e.tenant?.orgId)).toEqual(['globex', 'acme', 'acme']);
    expect(await rawStream(bullpen)).not.toContain('acme');

    const ctx = makeJobContext('data-deletion', { orgId: 'acme' }, { jobId: 'erase-7' });
    const result = await createDataDeletionHandler(storesOf(bullpen))(ctx);
    expect(result.complete).toBe(true);

    const { entries } = await bullpen.audit.page();
    expect(entries.map((e) => e.action)).toEqual(['tenant.delete', 'job.retry', 'dlq.replay', 'job.add']);
    const pseudonym = (await bullpen.audit.pseudonymOf({ orgId: 'acme' })).orgId;
    expect(pseudonym).toMatch(/^p-[A-Za-z0-9_-]{22}$/);
    const add = entries.find((e) => e.action === 'job.add');
    expect(add?.tenant).toEqual({ orgId: pseudonym });
    expect(entries.find((e) => e.action === 'dlq.replay')?.tenant?.orgId).toBe(pseudonym);
    expect(entries.find((e) => e.action === 'tenant.delete')?.target).toEqual({ kind: 'tenant', id: pseudonym });
    expect(entries.find((e) => e.action === 'job.retry')?.tenant).toEqual({ orgId: 'globex' });
    expect(await rawStream(bullpen)).not.toContain('acme');
    expect(await bullpen.audit.tenantNamesHeld({ orgId: 'acme' })).toBe(0);
  });

  it('the pseudonym is stable: the same org, the same secret, the same pseudonym; another secret, another', async () => {
    const again = await server.readyBullpen({ env: { BULLPEN_DATA_DIR: dataDir } });
    expect(await again.audit.pseudonymOf({ orgId: 'acme' })).toEqual(await bullpen.audit.pseudonymOf({ orgId: 'acme' }));
    const other = await server.readyBullpen({ env: { AUDIT_PSEUDONYM_SECRET: 'x'.repeat(32) } });
    expect(await other.audit.pseudonymOf({ orgId: 'acme' })).not.toEqual(await bullpen.audit.pseudonymOf({ orgId: 'acme' }));
  });
});
