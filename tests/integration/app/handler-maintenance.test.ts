import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { QuotaStore } from '@/jobs/maintenance/quotas/quota-store';
import { UsageStore } from '@/jobs/maintenance/quotas/usage-store';
import { ViolationStore } from '@/jobs/maintenance/quotas/violation-store';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import { createQuotaCheckHandler } from '@/jobs/maintenance/quota-check';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { makeSessions } from '../../fixtures/app/sessions';

const acme = { orgId: 'acme' };
const acmeWs = { orgId: 'acme', workspaceId: 'ws1' };
const globex = { orgId: 'globex' };

let bullpen: Bullpen;
let quotas: QuotaStore;
let usage: UsageStore;
let violations: ViolationStore;
let sessions: SessionStore;

const server = useTestRedis();
beforeEach(async () => {
  bullpen = makeBullpen(server.redis);
  await readyClient(bullpen.redis);
  quotas = new QuotaStore(bullpen.redis, bullpen.keys);
  usage = new UsageStore(bullpen.redis, bullpen.keys);
  violations = new ViolationStore(bullpen.redis, bullpen.keys);
  sessions = new SessionStore(bullpen.redis, bullpen.keys);
});
afterEach(async () => {
  await bullpen.close();
});

async function seed() {
  const now = Date.now();
  for (const s of makeSessions({ tenant: acme, count: 5, idleMs: 0, now, prefix: 'a' })) await sessions.save(s);
  for (const s of makeSessions({ tenant: acmeWs, count: 3, idleMs: 0, now, prefix: 'aw' })) await sessions.save(s);
  for (const s of makeSessions({ tenant: globex, count: 2, idleMs: 0, now, prefix: 'g' })) await sessions.save(s);
  const memories = new MemoryStore(bullpen.redis, bullpen.keys);
  await memories.create({ kind: 'episodic', content: 'likes tea', importance: 0.5, tenant: acme });
  await memories.create({ kind: 'episodic', content: 'likes coffee', importance: 0.5, tenant: acme });
  await usage.recordJobs(acme, 12);
  await usage.recordJobs(acmeWs, 1);
  await quotas.set(acme, { sessions: 5, jobsPerDay: 10, memories: 1, trajectories: 100 });
  await quotas.set(acmeWs, { sessions: 1 });
  await quotas.set(globex, { sessions: 100, memories: 10 });
}

describe('quota-check', () => {
  it('records each usage over its quota once per hour and alerts once', async () => {
    await seed();
    const raise = vi.spyOn(bullpen.alerter, 'raise');
    const ctx = makeJobContext('quota-check', {});
    const result = await createQuotaCheckHandler(storesOf(bullpen))(ctx);

    expect(result.tenants).toBe(3);
    expect(result.newViolations).toBe(4);
    const found = (await violations.list(acme)).map((v) => [v.tenant.workspaceId ?? '-', v.metric, v.usage, v.limit]).sort();
    expect(found).toEqual([
      ['-', 'jobsPerDay', 13, 10],
      ['-', 'memories', 2, 1],
      ['-', 'sessions', 8, 5],
      ['ws1', 'sessions', 3, 1],
    ]);
    expect(await violations.list(globex)).toEqual([]);
    expect(raise).toHaveBeenCalledTimes(4);
    expect(raise.mock.calls.every(([a]) => a.reason === 'quota_violation' && a.type === 'quota-check')).toBe(true);
    expect(raise.mock.calls.map(([a]) => a.message)).toContain('Tenant acme/ws1 is over its sessions quota: 3 > 1');
    expect(ctx.progressReports.filter((p) => p.phase === 'checking').map((p) => p.detail?.checked)).toEqual([0, 1, 2, 3]);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    // Again within the hour (a retry, or a second trigger): nothing new recorded or alerted.
    const again = await createQuotaCheckHandler(storesOf(bullpen))(makeJobContext('quota-check', {}));
    expect(again.newViolations).toBe(0);
    expect(again.violations).toHaveLength(4);
    expect(raise).toHaveBeenCalledTimes(4);
    expect(await violations.countByTenant(acme)).toBe(4);
  });

  it('checks one organisation when asked, and measures storage bytes', async () => {
    await seed();
    await quotas.set(globex, { storageBytes: 100 });
    const only = await createQuotaCheckHandler(storesOf(bullpen))(makeJobContext('quota-check', { orgId: 'globex' }));
    expect(only.tenants).toBe(1);
    expect(only.violations.map((v) => v.metric)).toEqual(['storageBytes']);
    // Two sessions and the quota record itself weigh well over 100 bytes as JSON.
    expect(only.violations[0].usage).toBeGreaterThan(300);
    expect(await violations.countByTenant(acme)).toBe(0);
  });

  it('refuses a quota without a limit and keeps the old one', async () => {
    await quotas.set(acme, { sessions: 5 });
    await expect(quotas.set(acme, {})).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(quotas.set(acme, { sessions: -1 })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await quotas.get(acme))?.limits).toEqual({ sessions: 5 });
  });
});
