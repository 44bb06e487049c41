import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { DeadLetterReconciler } from '@/lib/dlq/reconciler';
import { FAILED_PAGE } from '@/lib/dlq/scripts';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { PermanentError } from '@/lib/errors/permanent-error';
import { silentLogger } from '@/lib/logging/logger';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';

const TYPE = 'tidy' as const;

/** A sink that loses every write, as a worker that dies before its DLQ write would. */
class DroppingSink implements DeadLetterSink {
  readonly dropped: DeadLetterInput[] = [];
  async record(input: DeadLetterInput) {
    this.dropped.push(input);
    return { id: 'dropped', created: true };
  }
}

describe('DeadLetterReconciler', () => {
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;
  let connection: ReturnType<Bullpen['workerConnection']> | undefined;

  const server = useTestRedis();
  beforeEach(() => {
    bullpen = testBullpen(server.redis, { handledTypes: [TYPE] });
  });
  afterEach(async () => {
    await pool?.close(5_000);
    connection?.disconnect();
    pool = undefined;
    connection = undefined;
    await bullpen.close();
  });

  /** Runs `count` jobs through a real worker whose handler fails for good, writing to `sink`. */
  async function failJobs(count: number, sink: DeadLetterSink): Promise<string[]> {
    connection = bullpen.workerConnection();
    pool = new WorkerPool({
      connection,
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        [TYPE]: async () => {
          throw new PermanentError('the session store refused the cleanup');
        },
      },
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
      types: [TYPE],
    });
    await pool.start();
    const dispatched = await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: count }, () => ({ type: TYPE, data: {}, opts: { tenant: { orgId: 'org-r' } } })),
    );
    const queue = bullpen.queues.get(TYPE);
    const deadline = Date.now() + 30_000;
    while ((await queue.getFailedCount()) < count) {
      if (Date.now() > deadline) throw new Error(`only ${await queue.getFailedCount()} of ${count} jobs failed`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await pool.close(5_000);
    pool = undefined;
    return dispatched.map((d) => d.jobId);
  }

  it('recovers final failures whose DLQ write was lost, once', async () => {
    const sink = new DroppingSink();
    const jobIds = await failJobs(5, sink);
    expect(sink.dropped).toHaveLength(5);
    expect((await bullpen.dlq.counts()).total).toBe(0);

    const reconciler = DeadLetterReconciler.fromBullpen(bullpen);
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 5, recovered: 5 });
    for (const jobId of jobIds) {
      const entry = await bullpen.dlq.getByJob(TYPE, jobId);
      expect(entry).toMatchObject({
        status: 'pending',
        source: 'reconciler',
        jobType: TYPE,
        tenant: { orgId: 'org-r' },
        attempts: 1,
        error: { message: 'the session store refused the cleanup', errorClass: 'permanent' },
      });
      expect(entry?.error.stack).toMatch(/PermanentError/);
    }
    expect(await bullpen.dlq.pendingCount()).toBe(5);

    const second = await reconciler.reconcileOnce();
    expect(second.recovered).toBe(0);
    expect((await bullpen.dlq.counts()).total).toBe(5);
  });

  it('brings back a deleted entry whose job is still in the failed set; a purged one stays gone', async () => {
    const [lostJob, purgedJob] = await failJobs(2, bullpen.dlq);
    const lost = await bullpen.dlq.getByJob(TYPE, lostJob);
    expect(lost?.source).toBe('runtime');
    // Data loss: the entry's hash disappears (its index members are left dangling).
    await bullpen.redis.del(bullpen.dlq.keys.entry(lost!.id));
    expect(await bullpen.dlq.get(lost!.id)).toBeUndefined();

    const purged = await bullpen.dlq.getByJob(TYPE, purgedJob);
    expect(await bullpen.dlq.purge({ status: 'pending', type: TYPE, from: purged!.failedAt, to: purged!.failedAt }, { by: 'admin' })).toBe(
      1,
    );
    expect(await bullpen.queues.get(TYPE).getJobState(purgedJob)).toBe('unknown');

    const reconciler = DeadLetterReconciler.fromBullpen(bullpen);
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 1, recovered: 1 });
    expect(await bullpen.dlq.get(lost!.id)).toMatchObject({ source: 'reconciler', status: 'pending', originalJobId: lostJob });
    expect(await bullpen.dlq.getByJob(TYPE, purgedJob)).toBeUndefined();
    expect((await bullpen.dlq.list({ type: TYPE })).total).toBe(1);
  });

  it('bounds each run and resumes a backlog where the last run stopped', async () => {
    await failJobs(7, new DroppingSink());
    const reconciler = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE], pageSize: 2, maxPerQueue: 6 });
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 6 });
    // The head page is recorded now: later runs continue from the resume point instead
    // of stopping there, each within its budget, until the backlog is swept.
    let runs = 0;
    let recovered = 6;
    for (;;) {
      const r = await reconciler.reconcileOnce();
      expect(r.scanned).toBeLessThanOrEqual(6);
      recovered += r.recovered;
      if (r.recovered === 0 || ++runs > 6) break;
    }
    expect(recovered).toBe(7);
    expect((await bullpen.dlq.counts()).pending).toBe(7);
    // Swept to the end: the resume point is gone and a run stops at the recorded head.
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 2, recovered: 0 });
  });

  it('gets past jobs that failed in the same millisecond: a backlog of ties is swept, not rescanned forever', async () => {
    await failJobs(9, new DroppingSink());
    // Every failed job at one finishedOn: the set's order among them is by id alone.
    const failedKey = bullpen.queues.get(TYPE).keys.failed;
    const ids = await bullpen.redis.zrange(failedKey, 0, -1);
    await bullpen.redis.zadd(failedKey, ...ids.flatMap((id) => [1_700_000_000_000, id]));
    const reconciler = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE], pageSize: 2, maxPerQueue: 6 });
    let recovered = 0;
    for (let run = 0; run < 5; run++) recovered += (await reconciler.reconcileOnce()).recovered;
    expect(recovered).toBe(9);
    expect((await bullpen.dlq.counts()).pending).toBe(9);
  });

  it('keeps a job whose dead letter it could not write on a list in Redis, and writes it on a later run', async () => {
    await failJobs(3, new DroppingSink());
    // The last job a sweep reads, newest first.
    const [refusedJob] = await bullpen.redis.zrange(bullpen.queues.get(TYPE).keys.failed, 0, 0);
    // The DLQ refuses its write (a timeout), then recovers.
    let refuse = true;
    const sink: DeadLetterSink = {
      record: (input) =>
        refuse && input.jobId === refusedJob ? Promise.reject(new Error('Command timed out')) : bullpen.dlq.record(input),
    };
    const reconciler = new DeadLetterReconciler({
      sink,
      queues: bullpen.queues,
      redis: bullpen.redis,
      keys: bullpen.keys,
      types: [TYPE],
      pageSize: 1,
      maxPerQueue: 3,
    });
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 3, recovered: 2 });
    const list = bullpen.keys.tagged('dlq', 'reconciler-unwritten', TYPE);
    expect(await bullpen.redis.smembers(list)).toEqual([refusedJob]);
    refuse = false;
    // The head check stops at the recorded head and the resume point is past the refused
    // job: only the list's try reaches it.
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 2, recovered: 1 });
    expect(await bullpen.dlq.getByJob(TYPE, refusedJob)).toMatchObject({ source: 'reconciler', status: 'pending' });
    expect(await bullpen.redis.exists(list)).toBe(0);
  });

  it('sweeps a queue in one worker process at a time: a run that finds it held leaves it', async () => {
    await failJobs(5, new DroppingSink());
    const first = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE] });
    const second = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE] });
    expect(await Promise.all([first.reconcileOnce(), second.reconcileOnce()])).toEqual([
      { scanned: 5, recovered: 5 },
      { scanned: 0, recovered: 0 },
    ]);
    // The lease went with the first run: the second process sweeps the queue on its next run.
    expect(await bullpen.redis.exists(bullpen.keys.tagged('dlq', 'reconciler-lock', TYPE))).toBe(0);
    expect(await second.reconcileOnce()).toEqual({ scanned: 5, recovered: 0 });
  });

  it('pages a failed set from the last job seen, wherever its head moved since (dlq-failed-page.lua)', async () => {
    const key = bullpen.queues.get(TYPE).keys.failed;
    const page = async (count: number, score = '', id = '') =>
      (await FAILED_PAGE.run(bullpen.redis, [key], [count, score, id])) as string[];
    await bullpen.redis.zadd(key, 5, 'e', 4, 'd', 3, 'c2', 3, 'c1', 3, 'c0', 2, 'b', 1, 'a');
    expect(await page(2)).toEqual(['e', '5', 'd', '4']);
    // e leaves from ahead of d: the next page still starts right after d.
    await bullpen.redis.zrem(key, 'e');
    expect(await page(2, '4', 'd')).toEqual(['c2', '3', 'c1', '3']);
    // c1 itself leaves: after every job that failed later than it, its ties read again.
    await bullpen.redis.zrem(key, 'c1');
    expect(await page(2, '3', 'c1')).toEqual(['c2', '3', 'c0', '3']);
    // c0 was retried and failed again, now the newest: where it was is read as left, not after its new place.
    await bullpen.redis.zadd(key, 6, 'c0');
    expect(await page(2, '3', 'c0')).toEqual(['c2', '3', 'b', '2']);
    // A point of an older version holds only a time: its ties are read again.
    expect(await page(5, '2', '')).toEqual(['b', '2', 'a', '1']);
    expect(await page(5, '1', 'a')).toEqual([]);
    expect(await page(3)).toEqual(['c0', '6', 'd', '4', 'c2', '3']);
  });

  it('runs at start and on an interval until stopped', async () => {
    await failJobs(1, new DroppingSink());
    const reconciler = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE] });
    const stop = reconciler.startReconciler(60_000);
    const deadline = Date.now() + 10_000;
    while ((await bullpen.dlq.pendingCount()) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await stop();
    expect(await bullpen.dlq.pendingCount()).toBe(1);
    expect(() => reconciler.startReconciler(10)).toThrow(/at least 1000 ms/);
  });
});
