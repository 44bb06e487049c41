import { useTestRedis } from '../helpers/use-test-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { testBullpen } from '../helpers/test-bullpen';
import { spawnFixture } from '../helpers/spawn-worker';

const JOBS = 1_000;

describe('a worker killed with SIGKILL in the middle of 1,000 jobs', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;

  beforeAll(async () => {
    bullpen = testBullpen(server.redis);
  });
  afterAll(async () => {
    await bullpen.close();
  });

  it('loses no job: every job completes after another worker takes over', async () => {
    const prefix = bullpen.keys.root;
    const env = {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: prefix,
      STALLED_INTERVAL_MS: '1000',
      LOCK_DURATION_MS: '2000',
      JOB_MS: '20',
      CONCURRENCY: '20',
    };
    for (let i = 0; i < JOBS; i += 500) {
      await bullpen.dispatcher.dispatchBulk(
        Array.from({ length: 500 }, (_, j) => ({
          type: 'notify' as const,
          data: { webhookId: 'wh', event: 'test', payload: { n: i + j } },
        })),
      );
    }

    const first = spawnFixture('runtime-worker.ts', env);
    await first.ready;
    // Let it get well into the work, with jobs in flight, then kill it outright.
    await waitFor(async () => (await bullpen.redis.scard(`${prefix}:done`)) >= 200, 30_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const doneAtKill = new Set(await bullpen.redis.smembers(`${prefix}:done`));
    expect(doneAtKill.size).toBeLessThan(JOBS);
    // The jobs in flight at the kill: their handlers had started and not finished, and
    // BullMQ still holds them active, for the stalled check to hand to the next worker.
    const inFlight = [...new Set(await bullpen.redis.lrange(`${prefix}:started`, 0, -1))].filter((id) => !doneAtKill.has(id));
    expect(inFlight.length).toBeGreaterThan(0);
    expect(inFlight.length).toBeLessThanOrEqual(20);
    const queue = bullpen.queues.get('notify');
    const active = new Set((await queue.getActive(0, -1)).map((j) => j.id));
    expect(inFlight.filter((id) => !active.has(id))).toEqual([]);

    const second = spawnFixture('runtime-worker.ts', env);
    await second.ready;
    await waitFor(async () => (await bullpen.redis.scard(`${prefix}:done`)) >= JOBS, 60_000);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, prioritized: 0 });
    expect(await bullpen.redis.scard(`${prefix}:done`)).toBe(JOBS);
    expect(await bullpen.redis.scard(`${prefix}:dead`)).toBe(0);
    // Each job cut off by the kill ran again, in the second worker, to completion.
    const startedAgain = await bullpen.redis.lrange(`${prefix}:started`, 0, -1);
    for (const id of inFlight) {
      expect(
        startedAgain.filter((s) => s === id),
        `job ${id}`,
      ).toHaveLength(2);
      expect(await bullpen.redis.sismember(`${prefix}:done`, id), `job ${id}`).toBe(1);
    }
    // At-least-once: the jobs in flight at the kill ran twice, nothing else did.
    const completions = await bullpen.redis.llen(`${prefix}:completions`);
    expect(completions).toBeGreaterThanOrEqual(JOBS);
    expect(completions - JOBS).toBeLessThanOrEqual(20);
  }, 120_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
