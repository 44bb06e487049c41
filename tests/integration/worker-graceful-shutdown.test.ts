import { useTestRedis } from '../helpers/use-test-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { makeBullpen } from '../helpers/bullpen';
import { spawnFixture } from '../helpers/worker-process';

describe('SIGTERM while 20 jobs run', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;

  beforeAll(async () => {
    bullpen = makeBullpen(server.redis);
  });
  afterAll(async () => {
    await bullpen.close();
  });

  it('finishes all 20, starts no new job, and exits 0', async () => {
    const prefix = bullpen.keys.root;
    await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: 40 }, (_, n) => ({
        type: 'webhook-dispatch' as const,
        data: { webhookId: 'wh', event: 'test', payload: { n } },
      })),
    );
    const worker = spawnFixture('runtime-worker.ts', {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: prefix,
      JOB_MS: '1500',
      CONCURRENCY: '20',
      SHUTDOWN_GRACE_MS: '20000',
    });
    await worker.ready;
    const deadline = Date.now() + 20_000;
    while ((await bullpen.redis.llen(`${prefix}:started`)) < 20) {
      if (Date.now() > deadline) throw new Error(`20 jobs never ran at once:\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    worker.child.kill('SIGTERM');

    expect(await worker.exited).toBe(0);
    expect(await bullpen.redis.llen(`${prefix}:started`)).toBe(20);
    expect(await bullpen.redis.scard(`${prefix}:done`)).toBe(20);
    const counts = await bullpen.queues.get('webhook-dispatch').getJobCounts('active', 'completed', 'failed');
    expect(counts).toEqual({ active: 0, completed: 20, failed: 0 });
    const waiting = await bullpen.queues.get('webhook-dispatch').getJobCountByTypes('waiting', 'prioritized');
    expect(waiting).toBe(20);
  }, 60_000);
});
