import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { DeadLetterTenantStore } from '@/lib/dlq/dead-letter-tenant-store';
import { CLAIM_REPLAY } from '@/lib/dlq/scripts';
import { tenantStores } from '@/jobs/tenant-stores';
import { classifyError } from '@/lib/errors/classify';
import { HttpError } from '@/lib/errors/http-error';
import { QueuedJobsTenantStore } from '@/lib/jobs/tenant-jobs-store';
import type { Tenant } from '@/lib/jobs/tenant';
import { readyClient } from '@/lib/redis/connection';
import type { HandlerMap, JobContext, JobHandler } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { createDataDeletionHandler } from '@/jobs/maintenance/data-deletion';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';
import { makeJobContext } from '../../helpers/job-context';
import { seedTenantData } from '../../fixtures/app/tenant-data';

const acme: Tenant = { orgId: 'acme' };
const ws1: Tenant = { orgId: 'acme', workspaceId: 'ws1' };
const globex: Tenant = { orgId: 'globex' };

let bullpen: Bullpen;
let pool: WorkerPool | undefined;
let dataDir: string;
/** Resolves the webhook jobs that wait for it (the "running" jobs of a test). */
let release: () => void;
let gate: Promise<void>;

const server = useTestRedis();
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-tenant-jobs-'));
  bullpen = makeBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  gate = new Promise((resolve) => (release = resolve));
});
afterEach(async () => {
  release();
  await pool?.close(5_000);
  pool = undefined;
  await bullpen.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** webhook-dispatch by its payload's event: `ok` completes, `bad` fails for good (to the DLQ), `hold` runs until released. */
const webhook: JobHandler = async (ctx: JobContext) => {
  const { event } = ctx.data as { event: string };
  if (event === 'bad') throw new HttpError(400, 'rejected by the receiver');
  if (event === 'hold') await gate;
  return { delivered: true };
};

async function startPool(handlers: HandlerMap): Promise<void> {
  pool = poolOf(bullpen, handlers);
  await pool.start();
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function webhookCounts() {
  return bullpen.queues.get('webhook-dispatch').getJobCounts('active', 'completed', 'failed');
}

function envelope(tenant?: Tenant) {
  return { payload: {}, ...(tenant ? { tenant } : {}), requestId: randomUUID(), dispatchedAt: Date.now() };
}

async function exported(store: { exportByTenant(t: Tenant): AsyncIterable<Record<string, unknown>> }, tenant: Tenant) {
  const out: Array<Record<string, unknown>> = [];
  for await (const r of store.exportByTenant(tenant)) out.push(r);
  return out;
}

/**
 * Jobs of acme (organisation and ws1), globex and no tenant in every state a job keeps
 * its data in, interleaved so each page of a small page size mixes tenants. Returns how
 * many of acme's, ws1's and globex's there are (acme's include ws1's and one running job).
 */
async function seedJobs(): Promise<{ acme: number; ws1: number; globex: number }> {
  await startPool({ 'webhook-dispatch': webhook });
  const owners = [acme, ws1, globex, undefined];
  const counts = { acme: 0, ws1: 0, globex: 0 };
  const note = (t: Tenant | undefined) => {
    if (t?.orgId === 'acme') counts.acme++;
    if (t?.workspaceId === 'ws1') counts.ws1++;
    if (t?.orgId === 'globex') counts.globex++;
  };
  // Completed and failed (the failures also write dead letters).
  for (let i = 0; i < 12; i++) {
    const tenant = owners[i % 4];
    note(tenant);
    await bullpen.dispatcher.dispatch(
      'webhook-dispatch',
      { webhookId: 'w', event: i % 3 === 0 ? 'bad' : 'ok', payload: { i } },
      { tenant },
    );
  }
  await until('12 finished webhook jobs', async () => {
    const c = await webhookCounts();
    return c.completed + c.failed === 12;
  });
  // One of acme's, running.
  note(acme);
  await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event: 'hold', payload: {} }, { tenant: acme });
  await until('the held job to run', async () => (await webhookCounts()).active === 1);
  // Prioritized (the registry's default priority), 23 of them.
  for (let i = 0; i < 23; i++) {
    const tenant = owners[i % 4];
    note(tenant);
    await bullpen.dispatcher.dispatch('session-cleanup', {}, { tenant });
  }
  // Delayed.
  for (let i = 0; i < 9; i++) {
    const tenant = owners[(i + 1) % 4];
    note(tenant);
    await bullpen.dispatcher.dispatch('memory-cleanup', { olderThanDays: 30 }, { tenant, delayMs: 60_000 });
  }
  // Waiting (no priority), and waiting in a paused queue: BullMQ 6 keeps those in `wait` too.
  const paused = bullpen.queues.get('session-archive');
  await paused.pause();
  for (let i = 0; i < 11; i++) {
    const tenant = owners[(i + 2) % 4];
    note(tenant);
    await bullpen.queues.get('index-optimization').add('index-optimization', envelope(tenant), { priority: 0 });
    note(tenant);
    await paused.add('session-archive', envelope(tenant), { priority: 0 });
  }
  return counts;
}

describe('QueuedJobsTenantStore', () => {
  it('counts, exports and removes a tenant’s jobs in every state, a small page at a time, and leaves running jobs and other tenants’', async () => {
    const expected = await seedJobs();
    const store = new QueuedJobsTenantStore(bullpen.queues, { pageSize: 4 });

    expect(await store.countByTenant(acme)).toBe(expected.acme);
    expect(await store.countByTenant(ws1)).toBe(expected.ws1);
    expect(await store.countByTenant(globex)).toBe(expected.globex);

    const records = await exported(store, acme);
    expect(records).toHaveLength(expected.acme);
    expect(new Set(records.map((r) => `${r.queue}/${r.jobId}`)).size).toBe(records.length);
    expect(new Set(records.map((r) => r.state))).toEqual(new Set(['completed', 'failed', 'active', 'prioritized', 'delayed', 'waiting']));
    for (const r of records) {
      expect(Object.keys(r).sort()).toEqual(['data', 'jobId', 'name', 'queue', 'state', 'tenant', 'timestamp']);
      expect((r.tenant as Tenant).orgId).toBe('acme');
      expect((r.data as { tenant: Tenant }).tenant).toEqual(r.tenant);
      // Plain JSON: nothing of BullMQ's survives a round trip differently.
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    }
    const globexBefore = await exported(store, globex);
    const sessionCleanups = await bullpen.queues.get('session-cleanup').getJobCountByTypes('prioritized');

    // One workspace: only its jobs go.
    expect(await store.deleteByTenant(ws1)).toBe(expected.ws1);
    expect(await store.countByTenant(ws1)).toBe(0);
    expect(await store.countByTenant(acme)).toBe(expected.acme - expected.ws1);

    // The organisation: everything but the running job goes; that one is still counted.
    expect(await store.deleteByTenant(acme)).toBe(expected.acme - expected.ws1 - 1);
    expect(await store.countByTenant(acme)).toBe(1);
    const [running] = await exported(store, acme);
    expect(running).toMatchObject({ queue: 'webhook-dispatch', state: 'active' });
    expect(await bullpen.queues.get('webhook-dispatch').getJobState(String(running.jobId))).toBe('active');

    // Other tenants' jobs and jobs without a tenant are untouched.
    expect(await exported(store, globex)).toEqual(globexBefore);
    // Of its 23 jobs, 6 were acme's and 6 ws1's.
    expect(await bullpen.queues.get('session-cleanup').getJobCountByTypes('prioritized')).toBe(sessionCleanups - 12);
    expect(await bullpen.queues.get('session-archive').isPaused()).toBe(true);

    // Once it has finished, the next run removes it; a run after that finds nothing.
    release();
    await until('the held job to finish', async () => (await webhookCounts()).active === 0);
    expect(await store.deleteByTenant(acme)).toBe(1);
    expect(await store.countByTenant(acme)).toBe(0);
    expect(await store.deleteByTenant(acme)).toBe(0);
    expect(await exported(store, globex)).toEqual(globexBefore);
  });
});

describe('DeadLetterTenantStore', () => {
  async function recordEntry(tenant: Tenant | undefined, n: number) {
    return bullpen.dlq.record({
      queue: 'memory-cleanup',
      jobId: `seed-${n}`,
      jobType: 'memory-cleanup',
      jobData: { ...envelope(tenant), payload: { olderThanDays: 30 } },
      error: { message: `failure ${n}`, errorClass: 'validation' },
      attempts: 1,
      failedAt: 1_700_000_000_000 + n,
      tenant,
      source: 'runtime',
    });
  }

  it('counts and exports a tenant’s entries in pages, narrowed to a workspace, and purges them with their failed jobs', async () => {
    const owners = [acme, ws1, globex, undefined, ws1];
    const ids: Record<string, string[]> = { acme: [], ws1: [], globex: [], none: [] };
    for (let n = 0; n < 25; n++) {
      const t = owners[n % owners.length];
      const { id } = await recordEntry(t, n);
      ids[t ? (t.workspaceId ?? t.orgId) : 'none'].push(id);
    }
    // Statuses do not matter to a deletion: a discarded and a replayed entry go too.
    await bullpen.dlq.discard(ids.acme[0], 'alice');
    await bullpen.dlq.replay(ids.ws1[0], { by: 'alice' });
    // A real final failure: its job sits in BullMQ's failed set.
    await startPool({ 'webhook-dispatch': webhook });
    const failed = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event: 'bad', payload: {} }, { tenant: ws1 });
    await until('the failure’s dead letter', async () => (await bullpen.dlq.getByJob('webhook-dispatch', failed.jobId)) !== undefined);
    expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('failed');

    const store = new DeadLetterTenantStore(bullpen.dlq, { pageSize: 3 });
    const acmeTotal = ids.acme.length + ids.ws1.length + 1;
    expect(await store.countByTenant(acme)).toBe(acmeTotal);
    expect(await store.countByTenant(ws1)).toBe(ids.ws1.length + 1);
    const all = await exported(store, acme);
    expect(all).toHaveLength(acmeTotal);
    expect(new Set(all.map((e) => e.id)).size).toBe(acmeTotal);
    expect(all.every((e) => (e.tenant as Tenant).orgId === 'acme')).toBe(true);
    expect(JSON.parse(JSON.stringify(all))).toEqual(all);
    const globexBefore = await exported(store, globex);
    expect(globexBefore).toHaveLength(ids.globex.length);

    // A replay in progress right now is left to finish (and counted); a stale claim is not.
    const dlqKeys = bullpen.dlq.keys;
    const claim = (id: string, at: number) =>
      CLAIM_REPLAY.run(
        bullpen.redis,
        [dlqKeys.entry(id), dlqKeys.version],
        [dlqKeys.base, id, at, at - 60_000, 'pending', '', `replay-${id}-`],
      );
    await claim(ids.acme[1], Date.now());
    await claim(ids.acme[2], Date.now() - 5 * 60_000);

    expect(await store.deleteByTenant(ws1)).toBe(ids.ws1.length + 1);
    expect(await store.countByTenant(ws1)).toBe(0);
    // The failed job went with its entry, so the reconciler cannot bring it back.
    expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('unknown');

    expect(await store.deleteByTenant(acme)).toBe(ids.acme.length - 1);
    expect(await store.countByTenant(acme)).toBe(1);
    expect((await exported(store, acme)).map((e) => e.id)).toEqual([ids.acme[1]]);
    expect(await store.deleteByTenant(acme)).toBe(0);

    expect(await exported(store, globex)).toEqual(globexBefore);
    expect((await bullpen.dlq.list({}, { limit: 200 })).total).toBe(ids.globex.length + ids.none.length + 1);
  });
});

describe('data-deletion with the jobs and dead letters of the tenant', () => {
  it('run as a real job: leaves zero dead letters and zero queued or finished jobs of the tenant, and the other tenant’s untouched', async () => {
    await seedTenantData(bullpen, 'acme', ['ws1']);
    await seedTenantData(bullpen, 'globex', []);
    await startPool({ 'webhook-dispatch': webhook, 'data-deletion': createDataDeletionHandler(storesOf(bullpen)) });
    for (const [i, tenant] of [acme, ws1, globex, globex, acme, ws1].entries()) {
      await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event: i % 2 ? 'bad' : 'ok', payload: { i } }, { tenant });
    }
    await until('6 finished webhook jobs', async () => {
      const c = await webhookCounts();
      return c.completed + c.failed === 6;
    });
    const jobs = new QueuedJobsTenantStore(bullpen.queues);
    const deadLetters = new DeadLetterTenantStore(bullpen.dlq);
    expect(await jobs.countByTenant(acme)).toBeGreaterThanOrEqual(4 + 2);
    expect(await deadLetters.countByTenant(acme)).toBeGreaterThanOrEqual(2 + 2);
    const globexJobs = await exported(jobs, globex);
    const globexLetters = await exported(deadLetters, globex);
    expect(globexJobs.length).toBeGreaterThan(0);
    expect(globexLetters.length).toBeGreaterThan(0);

    const { jobId } = await bullpen.dispatcher.dispatch('data-deletion', { orgId: 'acme', reason: 'test' }, { tenant: acme });
    const queue = bullpen.queues.get('data-deletion');
    await until('the deletion to finish', async () => ['completed', 'failed'].includes(await queue.getJobState(jobId)), 30_000);
    const job = await queue.getJob(jobId);
    expect(job?.failedReason).toBeUndefined();
    // Its own job (running while it verified) is not counted as a remainder.
    expect(job?.returnvalue).toMatchObject({ complete: true, remaining: { 'queued-jobs': 0, 'dead-letters': 0 } });
    // Two seeded and two failed entries; the failed jobs went with their entries, so the
    // job store removed the two seeded waiting jobs and the two completed ones.
    expect(job?.returnvalue.deleted).toMatchObject({ 'dead-letters': 4, 'queued-jobs': 4 });

    for (const store of tenantStores(storesOf(bullpen))) expect(await store.countByTenant(acme), store.name).toBe(0);
    expect(await exported(jobs, globex)).toEqual(globexJobs);
    expect(await exported(deadLetters, globex)).toEqual(globexLetters);
    const failedLeft = await bullpen.queues.get('webhook-dispatch').getJobs('failed', 0, 50);
    expect(failedLeft.map((j) => (j.data as { tenant: Tenant }).tenant.orgId)).toEqual(['globex']);
  });

  it('fails retryably while a job of the tenant is still running, and completes once it has finished', async () => {
    await startPool({ 'webhook-dispatch': webhook });
    await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event: 'hold', payload: {} }, { tenant: ws1 });
    await bullpen.dispatcher.dispatch('session-cleanup', {}, { tenant: ws1 });
    await until('the held job to run', async () => (await webhookCounts()).active === 1);

    const handler = createDataDeletionHandler(storesOf(bullpen));
    const error = await handler(makeJobContext('data-deletion', { orgId: 'acme' }, { jobId: 'erase-2' })).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/queued-jobs: 1/);
    expect(classifyError(error).retryable).toBe(true);
    // The waiting job is gone already; only the running one is left.
    expect(await bullpen.queues.get('session-cleanup').getJobCountByTypes('prioritized', 'waiting')).toBe(0);

    release();
    await until('the held job to finish', async () => (await webhookCounts()).completed === 1);
    const result = await handler(makeJobContext('data-deletion', { orgId: 'acme' }, { jobId: 'erase-2', attempt: 2 }));
    expect(result.complete).toBe(true);
    expect(result.deleted['queued-jobs']).toBe(1);
    expect(await new QueuedJobsTenantStore(bullpen.queues).countByTenant(acme)).toBe(0);
  });
});
