import { afterEach, describe, expect, it } from 'vitest';
import { shippedApp } from '@/jobs/shipped-app';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { silentLogger } from '@/lib/logging/logger';
import type { RedisClient } from '@/lib/redis/connection';
import type { JobContext } from '@/lib/runtime/handler';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { planBacklog, seedPayload, seedBacklog } from '@/scripts/bench/peer-seed';
import { useTestRedis } from '../../helpers/use-test-redis';

const TYPE = 'webhook-dispatch';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the peer benchmark’s backlog', () => {
  const server = useTestRedis(shippedApp);
  let pool: WorkerPool | undefined;
  let connection: RedisClient | undefined;

  afterEach(async () => {
    await pool?.close(5_000);
    connection?.disconnect();
    pool = undefined;
    connection = undefined;
  });

  it('holds the planned jobs in every state, and its cloned waiting jobs are jobs the runtime takes in order and accepts', async () => {
    const bullpen = await server.readyBullpen();
    const total = 12_000;
    const backlog = await seedBacklog(bullpen, total, () => undefined);
    expect(backlog.queues).toEqual(planBacklog(total));

    const queue = bullpen.queues.get(TYPE);
    const plan = backlog.queues.find((q) => q.type === TYPE);
    const counts = await queue.getJobCounts('prioritized', 'delayed', 'completed', 'failed', 'wait', 'active');
    expect(counts).toEqual({
      prioritized: plan?.prioritized,
      delayed: plan?.delayed,
      completed: plan?.completed,
      failed: plan?.failed,
      wait: 0,
      active: 0,
    });
    const [head] = await queue.getJobs(['prioritized'], 0, 0, true);
    const firstId = Number(head?.id);
    expect(firstId).toBeGreaterThan(0);

    // A worker of the runtime, one job at a time: it validates each envelope and payload before the handler runs.
    const ran: Array<Pick<JobContext, 'jobId' | 'tenant' | 'data' | 'requestId'>> = [];
    connection = bullpen.workerConnection();
    pool = new WorkerPool({
      connection,
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        [TYPE]: async (ctx) => {
          ran.push({ jobId: ctx.jobId, tenant: ctx.tenant, data: ctx.data, requestId: ctx.requestId });
          return { delivered: true, status: 200, latencyMs: 1 };
        },
      },
      sink: bullpen.dlq,
      alerter: bullpen.alerter,
      logger: silentLogger,
      concurrency: 1,
    });
    await pool.start();
    const deadline = Date.now() + 20_000;
    while (ran.length < 3) {
      if (Date.now() > deadline) throw new Error(`the worker took ${ran.length} of the cloned jobs in 20 s`);
      await sleep(20);
    }
    await pool.close(5_000);
    pool = undefined;

    // Taken in the order they were written (one priority band, FIFO), each with its own tenant and request id.
    expect(ran.slice(0, 3).map((r) => Number(r.jobId))).toEqual([firstId, firstId + 1, firstId + 2]);
    for (const r of ran.slice(0, 3)) {
      const id = Number(r.jobId);
      expect(r.tenant).toEqual({ orgId: `org-${id % 40}` });
      expect(r.requestId).toBe(`bench-${id}`);
      expect(r.data).toEqual(seedPayload(TYPE));
      expect(await queue.getJobState(String(id))).toBe('completed');
    }
    expect(((await queue.getJob(String(firstId + 3)))?.data as JobEnvelope).tenant).toEqual({ orgId: `org-${(firstId + 3) % 40}` });
    expect(await queue.getJobCounts('failed')).toEqual({ failed: plan?.failed });
  });
});
