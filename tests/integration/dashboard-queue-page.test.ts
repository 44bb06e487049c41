import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import type { TestJobs } from '../helpers/test-jobs';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const T0 = 1_700_000_000_000;

/**
 * Writes `n` finished jobs the way BullMQ stores them (a hash per job, the id in the
 * state's sorted set scored by finishedOn), in pipelined batches: building a large set
 * through real workers would take minutes. Job i finished at T0 + i ms (higher = newer).
 */
async function seedFinished(
  b: Bullpen,
  type: TestJobs[number]['name'],
  state: 'completed' | 'failed',
  n: number,
  tenantOf: (i: number) => string | undefined = () => undefined,
) {
  const queue = b.queues.get(type);
  await queue.waitUntilReady();
  const setKey = queue.toKey(state);
  for (let start = 0; start < n; start += 5_000) {
    const pipe = b.redis.pipeline();
    for (let i = start; i < Math.min(n, start + 5_000); i++) {
      const id = String(i + 1);
      const org = tenantOf(i);
      const data = { payload: { i }, ...(org ? { tenant: { orgId: org } } : {}), requestId: `r${i}`, dispatchedAt: T0 };
      pipe.hset(queue.toKey(id), {
        name: i % 10 === 0 ? 'special' : type,
        data: JSON.stringify(data),
        opts: JSON.stringify({ attempts: 3 }),
        timestamp: String(T0 + i - 1_000),
        delay: '0',
        priority: '0',
        processedOn: String(T0 + i - 10),
        finishedOn: String(T0 + i),
        atm: '3',
        ...(state === 'completed'
          ? { returnvalue: JSON.stringify({ ok: i }) }
          : { failedReason: `boom ${i}`, stacktrace: JSON.stringify([`Error: boom ${i}`]) }),
      });
      pipe.zadd(setKey, T0 + i, id);
    }
    await pipe.exec();
  }
}

describe('queue page read model', () => {
  it('reads one page of a 20,000-job completed set, newest first, at any depth', async () => {
    bullpen = testBullpen(server.redis);
    await seedFinished(bullpen, 'tidy', 'completed', 20_000);

    const first = await readQueuePage(bullpen, 'tidy', parseQueueFilters({ state: 'completed' }));
    expect(first.total).toBe(20_000);
    expect(first.pageCount).toBe(800);
    expect(first.jobs.map((j) => j.id)).toEqual(Array.from({ length: 25 }, (_, k) => String(20_000 - k)));
    expect(first.hasNext).toBe(true);
    expect(first.queue.counts.completed).toBe(20_000);

    // Page 700 of 800: ids 20000 - 699*25 downwards.
    const deep = await readQueuePage(bullpen, 'tidy', parseQueueFilters({ state: 'completed', page: '700', size: '25' }));
    expect(deep.jobs.map((j) => j.id)).toEqual(Array.from({ length: 25 }, (_, k) => String(20_000 - 699 * 25 - k)));
    expect(deep.jobs[0]).toMatchObject({ state: 'completed', finishedAt: T0 + 20_000 - 699 * 25 - 1, attemptsMade: 3 });

    const last = await readQueuePage(bullpen, 'tidy', parseQueueFilters({ state: 'completed', page: '800' }));
    expect(last.jobs.map((j) => j.id).at(-1)).toBe('1');
    expect(last.hasNext).toBe(false);

    // Past the end: an empty page, not an error and not a full read.
    const past = await readQueuePage(bullpen, 'tidy', parseQueueFilters({ state: 'completed', page: '900' }));
    expect(past.jobs).toEqual([]);
  });

  it('filters by tenant and by name with a bounded scan inside Redis', async () => {
    bullpen = testBullpen(server.redis);
    // 3,000 failed jobs; every 7th belongs to org 42, the rest to org 7.
    await seedFinished(bullpen, 'notify', 'failed', 3_000, (i) => (i % 7 === 0 ? '42' : '7'));
    const org42 = Array.from({ length: 3_000 }, (_, i) => i)
      .filter((i) => i % 7 === 0)
      .reverse()
      .map((i) => String(i + 1));

    const p1 = await readQueuePage(bullpen, 'notify', parseQueueFilters({ state: 'failed', tenant: '42', size: '10' }));
    expect(p1.jobs.map((j) => j.id)).toEqual(org42.slice(0, 10));
    expect(p1.jobs.every((j) => j.tenant?.orgId === '42')).toBe(true);
    expect(p1.total).toBeUndefined();
    expect(p1.hasNext).toBe(true);

    const p3 = await readQueuePage(bullpen, 'notify', parseQueueFilters({ state: 'failed', tenant: '42', size: '10', page: '3' }));
    expect(p3.jobs.map((j) => j.id)).toEqual(org42.slice(20, 30));

    // "42" must not match org "420" or a payload that merely contains the text.
    const none = await readQueuePage(bullpen, 'notify', parseQueueFilters({ state: 'failed', tenant: '4' }));
    expect(none.jobs).toEqual([]);
    expect(none.scan).toEqual({ scanned: 3_000, limit: 50_000, capped: false });

    // Name and tenant together: name "special" is every 10th job; both: i % 70 === 0.
    const both = await readQueuePage(bullpen, 'notify', parseQueueFilters({ state: 'failed', tenant: '42', name: 'special', size: '100' }));
    expect(both.jobs.map((j) => j.id)).toEqual(org42.filter((id) => (Number(id) - 1) % 10 === 0));

    // A capped scan says how far it searched.
    const capped = await readQueuePage(bullpen, 'notify', parseQueueFilters({ state: 'failed', name: 'nothing-has-this' }), 1_000);
    expect(capped.jobs).toEqual([]);
    expect(capped.scan).toEqual({ scanned: 1_000, limit: 1_000, capped: true });
  });

  it('refuses an unknown queue with NOT_FOUND', async () => {
    bullpen = testBullpen(server.redis);
    await expect(readQueuePage(bullpen, 'no-such-queue', parseQueueFilters({}))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('job page read model', () => {
  it('shows the envelope, progress and paged logs of a real job; null for a missing one', async () => {
    bullpen = testBullpen(server.redis);
    const { jobId } = await bullpen.dispatcher.dispatch(
      'notify',
      { webhookId: 'w1', event: 'e', payload: { blob: 'z'.repeat(100_000) } },
      { tenant: { orgId: '42' }, idempotencyKey: 'k-1', priority: 'CRITICAL' },
    );
    const queue = bullpen.queues.get('notify');
    const job = (await queue.getJob(jobId))!;
    await job.updateProgress({ percent: 40, phase: 'generating' });
    for (let i = 0; i < 150; i++) await job.log(`line ${i}`);

    const page = await readJobPage(bullpen, 'notify', jobId);
    expect(page).not.toBeNull();
    const { job: d, logs } = page!;
    expect(d).toMatchObject({
      id: jobId,
      state: 'prioritized',
      tenant: { orgId: '42' },
      priorityName: 'CRITICAL',
      progress: { percent: 40, phase: 'generating' },
      envelope: { idempotencyKey: 'k-1' },
      maxAttempts: 10,
    });
    expect(d.payload.truncated).toBe(true);
    expect(logs).toMatchObject({ count: 150, page: 1, pageCount: 2 });
    expect(logs.lines.at(-1)).toBe('line 149');
    expect(logs.lines[0]).toBe('line 50');

    const older = await readJobPage(bullpen, 'notify', jobId, 2);
    expect(older!.logs.lines).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}`));

    expect(await readJobPage(bullpen, 'notify', 'does-not-exist')).toBeNull();
  });
});
