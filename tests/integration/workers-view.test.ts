import { afterEach, describe, expect, it } from 'vitest';
import { readWorkersView } from '@/dashboard/workers/workers-view';
import { silentLogger } from '@/lib/logging/logger';
import type { JobContext } from '@/lib/runtime/handler';
import { heartbeatKeys } from '@/lib/runtime/worker-heartbeat';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { testApp } from '../helpers/test-app';
import { useTestRedis } from '../helpers/use-test-redis';

describe('the workers view', () => {
  const server = useTestRedis();
  const stops: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('lists each worker process with its queues and the jobs it runs now, with progress, and forgets it when it stops', async () => {
    const bullpen = await server.readyBullpen();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const worker = await startAppWorker(testApp, {
      config: { ...bullpen.config, WORKER_TYPES: ['notify', 'tidy'] },
      redis: bullpen.target,
      prefix: bullpen.keys.root,
      logger: silentLogger,
      handlers: {
        notify: async (ctx: JobContext) => {
          await ctx.progress(40, 'delivering');
          started.push(ctx.jobId);
          await released;
          return 'ok';
        },
        tidy: async () => 'ok',
      },
      metricsServer: false,
      maintenance: false,
    });
    stops.push(async () => {
      release();
      await worker.stop(5_000);
    });
    const { jobId } = await bullpen.dispatcher.dispatch(
      'notify',
      { webhookId: 'w', event: 'e', payload: {} },
      { tenant: { orgId: 'acme' } },
    );
    await expect.poll(() => started.length, { timeout: 10_000 }).toBe(1);

    // The heartbeat is written every 5 s; the first at start, the running job by the next one.
    await expect
      .poll(async () => (await readWorkersView(bullpen)).processes[0]?.running.map((r) => r.jobId), { timeout: 15_000 })
      .toEqual([jobId]);
    const view = await readWorkersView(bullpen);
    expect(view.processes).toHaveLength(1);
    const p = view.processes[0];
    expect(p).toMatchObject({ id: worker.pool.name, pid: process.pid, stale: false, runningTotal: 1 });
    expect(p.queues).toEqual([
      { type: 'notify', concurrency: 20 },
      { type: 'tidy', concurrency: 1 },
    ]);
    expect(p.running[0]).toMatchObject({
      type: 'notify',
      attempt: 1,
      tenant: { orgId: 'acme' },
      progress: { percent: 40, phase: 'delivering' },
      stuck: false,
    });
    expect(view.attention).toEqual([]);

    release();
    await worker.stop(5_000);
    stops.length = 0;
    // A graceful stop deletes its record at once.
    expect((await readWorkersView(bullpen)).processes).toEqual([]);
  });

  it('marks an active job whose lock lapsed as stalled, one past its time limit as overdue, and a silent process as stale', async () => {
    const bullpen = await server.readyBullpen();
    const queue = bullpen.queues.get('tidy');
    const a = await queue.add('tidy', { payload: {}, requestId: 'r1', dispatchedAt: 1 }, { priority: 0 });
    const b = await queue.add('tidy', { payload: {}, requestId: 'r2', dispatchedAt: 1 }, { priority: 0 });
    // As a worker that took them would leave them: in the active list; b still locked, a not.
    const now = Date.now();
    await bullpen.redis.lrem(queue.toKey('wait'), 0, a.id!);
    await bullpen.redis.lrem(queue.toKey('wait'), 0, b.id!);
    await bullpen.redis.lpush(queue.toKey('active'), a.id!, b.id!);
    await bullpen.redis.hset(queue.toKey(a.id!), 'processedOn', String(now - 1_000));
    await bullpen.redis.hset(queue.toKey(b.id!), 'processedOn', String(now - 10 * 60_000));
    await bullpen.redis.set(`${queue.toKey(b.id!)}:lock`, 'token', 'PX', 60_000);
    // A process record whose last heartbeat is 20 s old.
    const k = heartbeatKeys(bullpen.keys);
    const record = {
      id: 'bullpen:elsewhere:42',
      host: 'elsewhere',
      pid: 42,
      startedAt: now - 60_000,
      heartbeatAt: now - 20_000,
      queues: [],
      running: [],
      runningTotal: 0,
    };
    await bullpen.redis.set(k.record(record.id), JSON.stringify(record));
    await bullpen.redis.zadd(k.index, record.heartbeatAt, record.id);

    const view = await readWorkersView(bullpen, now);
    expect(view.attention).toEqual(
      expect.arrayContaining([
        { queue: 'tidy', jobId: a.id, why: 'stalled', processedAt: now - 1_000 },
        { queue: 'tidy', jobId: b.id, why: 'overdue', processedAt: now - 10 * 60_000 },
      ]),
    );
    expect(view.attention).toHaveLength(2);
    expect(view.processes).toEqual([expect.objectContaining({ id: record.id, stale: true })]);
  });
});
