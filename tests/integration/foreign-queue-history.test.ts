import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { readQueueHistory } from '@/dashboard/history/queue-history';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * Issue 20 item 5: a foreign queue's history said "No jobs finished in the last hour" when
 * 5 had (its workers record no per-minute metrics), and its jobs' attempts read "1/0".
 */
describe('a foreign queue whose workers record no metrics', () => {
  const server = useTestRedis();
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  it('counts its finished jobs from what BullMQ keeps, and shows attempts 0 as the one attempt BullMQ makes', async () => {
    const other = 'fh-other';
    const bullpen = await server.readyBullpen({ prefix: 'fh', env: { BULLPEN_QUEUE_PREFIXES: other } });
    const connection = new IORedis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: null });
    open.push(async () => connection.disconnect());
    const queue = new Queue('reports', { connection, prefix: other });
    open.push(() => queue.close());
    for (let i = 0; i < 5; i++) await queue.add('report', { i }, { attempts: 0 });
    await queue.add('report', { fail: true }, { attempts: 0 });
    let finished = 0;
    // A plain worker of another service: no `metrics` option, so BullMQ records no per-minute counts.
    const worker = new Worker(
      'reports',
      async (job) => {
        if ((job.data as { fail?: boolean }).fail) throw new Error('boom');
        return 'ok';
      },
      { connection, prefix: other },
    );
    worker.on('completed', () => finished++);
    worker.on('failed', () => finished++);
    open.push(() => worker.close());
    const deadline = Date.now() + 15_000;
    while (finished < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(finished).toBe(6);

    const history = await readQueueHistory(bullpen, `${other}~reports`, '1h', Date.now());
    expect(history.totals).toEqual({ completed: 5, failed: 1 });
    expect(history.latency).toMatchObject({ completed: 5, failed: 1, recorded: false });
    expect(history.counted).toEqual({ from: 'finished-jobs', capped: false });
    const day = await readQueueHistory(bullpen, `${other}~reports`, '24h', Date.now());
    expect(day.totals).toEqual({ completed: 5, failed: 1 });

    const page = await readQueuePage(bullpen, `${other}~reports`, parseQueueFilters({ state: 'completed' }));
    expect(page.jobs.map((j) => `${j.attemptsMade}/${j.maxAttempts}`)).toEqual(Array(5).fill('1/1'));
  });
});
