import { useTestRedis } from '../../helpers/use-test-redis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobUsageRecorder } from '@/jobs/maintenance/quotas/job-usage-recorder';
import { UsageStore, utcDay, type JobUsage } from '@/jobs/maintenance/quotas/usage-store';
import { HttpError } from '@/lib/errors/http-error';
import type { JobTypeName } from '../../helpers/shipped-jobs';
import type { Tenant } from '@/lib/jobs/tenant';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import type { JobContext } from '@/lib/runtime/handler';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { shippedApp } from '@/jobs/shipped-app';
import { makeBullpen } from '../../helpers/make-bullpen';

const acme: Tenant = { orgId: 'acme' };
const ws1: Tenant = { orgId: 'acme', workspaceId: 'ws1' };
const ws2: Tenant = { orgId: 'acme', workspaceId: 'ws2' };
const globex: Tenant = { orgId: 'globex' };
/** Noon UTC, 15 January 2025: far from midnight, so every count lands on one day. */
const NOON = Date.UTC(2025, 0, 15, 12);
const DAY = '2025-01-15';

let bullpen: Bullpen;
let usage: UsageStore;

const server = useTestRedis();
beforeEach(async () => {
  bullpen = makeBullpen(server.redis);
  await readyClient(bullpen.redis);
  usage = new UsageStore(bullpen.redis, bullpen.keys);
});
afterEach(async () => {
  await bullpen.close();
});

function complete(recorder: JobUsageRecorder, tenant: Tenant | undefined, type: JobTypeName = 'webhook-dispatch'): void {
  recorder.hooks().onComplete!({ jobId: 'j', type, attempt: 1, durationMs: 1, result: null, tenant });
}

/** Calls of a command since the server started, from INFO commandstats. */
async function calls(command: string): Promise<number> {
  const info = await bullpen.redis.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

describe('JobUsageRecorder', () => {
  it('writes nothing per job: the counts arrive with a flush, one MULTI for thousands of jobs', async () => {
    const recorder = new JobUsageRecorder({ usage, flushIntervalMs: 60_000, now: () => NOON });
    const owners = [acme, ws1, globex, undefined];
    const hincrbyBefore = await calls('hincrby');
    for (let i = 0; i < 3_000; i++) complete(recorder, owners[i % 4]);

    // Jobs without a tenant are not usage of anyone.
    expect(recorder.pending).toBe(2_250);
    expect(await usage.jobsOn(acme, DAY)).toBe(0);
    expect(await calls('hincrby')).toBe(hincrbyBefore);

    const execBefore = await calls('exec');
    expect(await recorder.flush()).toBe(2_250);
    expect(await calls('exec')).toBe(execBefore + 1);
    // One counter per tenant and day: acme, acme/ws1, globex.
    expect(await calls('hincrby')).toBe(hincrbyBefore + 3);
    expect(await usage.jobsOn(acme, DAY)).toBe(1_500);
    expect(await usage.jobsOn(ws1, DAY)).toBe(750);
    expect(await usage.jobsOn(globex, DAY)).toBe(750);

    // Nothing pending, no round trip.
    expect(recorder.pending).toBe(0);
    expect(await recorder.flush()).toBe(0);
    expect(await calls('exec')).toBe(execBefore + 1);
  });

  it('counts a job on the UTC day it finished', async () => {
    let now = Date.UTC(2025, 0, 15, 23, 59, 59, 999);
    const recorder = new JobUsageRecorder({ usage, now: () => now });
    complete(recorder, acme);
    complete(recorder, acme);
    now += 1;
    complete(recorder, acme);
    await recorder.flush();
    expect(await usage.jobsOn(acme, '2025-01-15')).toBe(2);
    expect(await usage.jobsOn(acme, '2025-01-16')).toBe(1);
  });

  it('does not count a data-deletion, and drops the counts it holds for the tenant being deleted', async () => {
    const recorder = new JobUsageRecorder({ usage, now: () => NOON });
    for (let i = 0; i < 5; i++) complete(recorder, acme);
    for (let i = 0; i < 3; i++) complete(recorder, ws1);
    for (let i = 0; i < 2; i++) complete(recorder, ws2);
    for (let i = 0; i < 4; i++) complete(recorder, globex);

    const hooks = recorder.hooks();
    hooks.onStart!({ jobId: 'erase', type: 'data-deletion', attempt: 1, tenant: ws1 });
    complete(recorder, ws1, 'data-deletion');
    expect(await recorder.flush()).toBe(11);
    expect(await usage.jobsOn(ws1, DAY)).toBe(0);
    expect(await usage.countByTenant(ws1)).toBe(0);
    expect(await usage.jobsOn(acme, DAY)).toBe(7);
    expect(await usage.jobsOn(globex, DAY)).toBe(4);

    // An organisation's deletion drops its workspaces' counts too.
    complete(recorder, acme);
    complete(recorder, ws2);
    complete(recorder, globex);
    hooks.onStart!({ jobId: 'erase-org', type: 'data-deletion', attempt: 1, tenant: acme });
    expect(recorder.pending).toBe(1);
    await recorder.flush();
    expect(await usage.jobsOn(acme, DAY)).toBe(7);
    expect(await usage.jobsOn(globex, DAY)).toBe(5);
  });

  it('keeps the counts of a failed flush for the next one; the timer flushes on its own and stop() writes the rest', async () => {
    class FlakyUsage extends UsageStore {
      failures = 1;
      override async recordJobsBatch(items: ReadonlyArray<JobUsage>): Promise<void> {
        if (this.failures-- > 0) throw new Error('Connection is closed.');
        return super.recordJobsBatch(items);
      }
    }
    const flaky = new FlakyUsage(bullpen.redis, bullpen.keys);
    const recorder = new JobUsageRecorder({ usage: flaky, flushIntervalMs: 50, now: () => NOON });
    for (let i = 0; i < 10; i++) complete(recorder, acme);
    await expect(recorder.flush()).rejects.toThrow('Connection is closed.');
    expect(recorder.pending).toBe(10);
    complete(recorder, acme);

    recorder.start();
    const deadline = Date.now() + 5_000;
    while ((await usage.jobsOn(acme, DAY)) < 11) {
      if (Date.now() > deadline) throw new Error('the timer never flushed');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await usage.jobsOn(acme, DAY)).toBe(11);

    for (let i = 0; i < 4; i++) complete(recorder, globex);
    await recorder.stop();
    expect(recorder.pending).toBe(0);
    expect(await usage.jobsOn(globex, DAY)).toBe(4);
    expect(() => new JobUsageRecorder({ usage, flushIntervalMs: 0 })).toThrow(/at least 10 ms/);
  });
});

describe('the worker process feeds jobsPerDay', () => {
  it('counts a job once — when it completes or fails for good, never per retried attempt — and writes the counts when it stops', async () => {
    const startedAt = Date.now();
    const worker = await startAppWorker(shippedApp, {
      config: bullpen.config,
      redis: bullpen.target,
      prefix: bullpen.keys.root,
      logger: silentLogger,
      handlers: {
        'webhook-dispatch': async (ctx: JobContext) => {
          const { event } = ctx.data as { event: string };
          if (event === 'bad') throw new HttpError(400, 'rejected');
          if (event === 'down' || (event === 'flaky' && ctx.attempt === 1)) throw new HttpError(503, 'unavailable');
          return 'ok';
        },
      },
      metricsServer: false,
      maintenance: false,
    });
    try {
      const send = (event: string, tenant?: Tenant, attempts?: number) =>
        bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event, payload: {} }, { tenant, attempts });
      for (let i = 0; i < 3; i++) await send('ok', acme);
      for (let i = 0; i < 2; i++) await send('flaky', acme, 3);
      await send('bad', ws1);
      await send('down', ws1, 2);
      for (let i = 0; i < 2; i++) await send('ok', globex);
      for (let i = 0; i < 2; i++) await send('ok');
      const queue = bullpen.queues.get('webhook-dispatch');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const c = await queue.getJobCounts('completed', 'failed');
        if (c.completed === 9 && c.failed === 2) break;
        if (Date.now() > deadline) throw new Error(`jobs did not finish: ${JSON.stringify(c)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await worker.stop(5_000);
    }
    const days = [...new Set([utcDay(startedAt), utcDay(Date.now())])];
    const jobs = async (t: Tenant) => {
      let n = 0;
      for (const day of days) n += await usage.jobsOn(t, day);
      return n;
    };
    // acme: 3 ok + 2 flaky (retried once each) + ws1's bad and down (two attempts, one final failure).
    expect(await jobs(acme)).toBe(7);
    expect(await jobs(ws1)).toBe(2);
    expect(await jobs(globex)).toBe(2);
  });
});
