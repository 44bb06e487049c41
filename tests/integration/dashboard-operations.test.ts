import { useTestRedis } from '../helpers/use-test-redis';
import { UnrecoverableError, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { readOverview } from '@/dashboard/queues/queue-overview';
import { deadLetterId } from '@/lib/dlq/entry';
import { readyClient } from '@/lib/redis/connection';
import { backoffStrategy } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

/**
 * Makes `n` real failed notify jobs with pending dead letters for the first
 * `withDlq`: each taken and failed by BullMQ's own scripts (moveToActive, then moveToFailed
 * with an UnrecoverableError), as a worker fails a job for good, with no handler run.
 */
async function failedJobs(b: Bullpen, n: number, withDlq = 0): Promise<string[]> {
  const queue = b.queues.get('notify');
  await queue.waitUntilReady();
  const ids: string[] = [];
  for (let start = 0; start < n; start += 500) {
    const batch = await b.dispatcher.dispatchBulk(
      Array.from({ length: Math.min(500, n - start) }, (_, k) => ({
        type: 'notify' as const,
        data: { webhookId: `w${start + k}`, event: 'e', payload: {} },
        opts: { tenant: { orgId: '42' } },
      })),
    );
    ids.push(...batch.map((r) => r.jobId));
  }
  const worker = new Worker('notify', null, {
    connection: b.workerConnection(),
    prefix: b.keys.queuePrefix('notify'),
    autorun: false,
  });
  try {
    for (let taken = 0; taken < ids.length; taken++) {
      const job = await worker.getNextJob('failed-jobs');
      if (!job) throw new Error(`only ${taken} of ${ids.length} jobs to take`);
      // Kept past the type's retention (the last 1,000 failed), so a test can have 1,200.
      job.opts.removeOnFail = false;
      await job.moveToFailed(new UnrecoverableError('HTTP 503'), 'failed-jobs', false);
    }
  } finally {
    await worker.close();
  }
  expect(await queue.getFailedCount()).toBe(ids.length);
  const now = Date.now();
  for (const [k, id] of ids.slice(0, withDlq).entries()) {
    await b.dlq.record({
      queue: 'notify',
      jobId: id,
      jobType: 'notify',
      jobData: { payload: { webhookId: `w${k}`, event: 'e', payload: {} }, requestId: 'r', dispatchedAt: now },
      error: { message: 'HTTP 503', errorClass: 'server' },
      attempts: 10,
      failedAt: now,
      source: 'runtime',
    });
  }
  return ids;
}

describe('queue operations', () => {
  it('retries all 1,200 failed jobs in batches, marks their dead letters and reports progress', async () => {
    bullpen = testBullpen(server.redis);
    await failedJobs(bullpen, 1_200, 3);
    const queue = bullpen.queues.get('notify');
    const reports: number[] = [];
    const counts = await new QueueOperations(bullpen).retryAllFailed(
      'notify',
      'olivia',
      async (p) => {
        reports.push(p.succeeded);
        expect(p.total).toBe(1_200);
      },
      { batchSize: 250 },
    );
    expect(counts).toEqual({ succeeded: 1_200, skipped: 0, failed: 0, skippedBecause: {} });
    expect(await queue.getFailedCount()).toBe(0);
    const back = await queue.getJobCounts('waiting', 'prioritized');
    expect(back.waiting + back.prioritized).toBe(1_200);
    // Progress after every batch of 250, cumulative.
    expect(reports).toEqual([0, 250, 500, 750, 1_000, 1_200]);
    // Fresh attempts.
    const [one] = await queue.getJobs(['prioritized'], 0, 0);
    expect(one.attemptsMade).toBe(0);
    // The DLQ entries of retried jobs are marked, so the two views agree.
    expect(await bullpen.dlq.counts()).toMatchObject({ replayed: 3, pending: 0 });
  });

  it('skips, and says why, the failed jobs whose dead letters were already replayed or discarded', async () => {
    bullpen = testBullpen(server.redis);
    const ids = await failedJobs(bullpen, 5, 5);
    const entry = (id: string) => deadLetterId('notify', id);
    await bullpen.dlq.replay(entry(ids[0]), { by: 'dora' });
    await bullpen.dlq.discard(entry(ids[1]), 'dora');
    const queue = bullpen.queues.get('notify');
    const replayJob = await queue.getJob(`replay-${entry(ids[0])}-1`);
    expect(replayJob).toBeDefined();

    // One job: refused with the reason, nothing runs.
    const jobs = new JobOperations(bullpen);
    await expect(jobs.retry('notify', ids[0], 'olivia')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('already replayed'),
    });
    await expect(jobs.retry('notify', ids[1], 'olivia')).rejects.toMatchObject({ message: expect.stringContaining('discarded') });

    // All: said before it runs, then the other three run; the two are skipped and counted by reason.
    const queueOps = new QueueOperations(bullpen);
    expect(await queueOps.retryPreview('notify')).toMatchObject({
      failed: 5,
      scanned: 5,
      willRetry: 3,
      willSkip: { replayed: 1, discarded: 1 },
    });
    expect(await queueOps.retryPreview('notify', 3)).toMatchObject({ failed: 5, scanned: 3 });
    const counts = await queueOps.retryAllFailed('notify', 'olivia');
    expect(counts).toEqual({
      succeeded: 3,
      skipped: 2,
      failed: 0,
      skippedBecause: { replayed: 1, discarded: 1 },
      message: '2 skipped: 1 already replayed from the dead letters, 1 dead letter discarded',
    });
    expect(await queue.getJobState(ids[0])).toBe('failed');
    expect(await queue.getJobState(ids[1])).toBe('failed');
    expect((await bullpen.dlq.get(entry(ids[0])))?.replays).toHaveLength(1);
    expect((await bullpen.dlq.get(entry(ids[2])))?.status).toBe('replayed');
  });

  it('retries selected ids, skipping those no longer failed', async () => {
    bullpen = testBullpen(server.redis);
    const ids = await failedJobs(bullpen, 5, 1);
    const ops = new QueueOperations(bullpen);
    expect(await ops.retrySelected('notify', [ids[0], ids[1], 'nope'], 'olivia')).toEqual({
      succeeded: 2,
      skipped: 1,
      failed: 0,
      skippedBecause: { gone: 1 },
      message: '1 skipped: 1 no longer failed',
    });
    // A second retry of the same job is a skip, not an error.
    expect(await ops.retrySelected('notify', [ids[0]], 'olivia')).toMatchObject({ succeeded: 0, skipped: 1, failed: 0 });
    expect(await bullpen.queues.get('notify').getFailedCount()).toBe(3);
    const entry = await bullpen.dlq.get(deadLetterId('notify', ids[0]));
    expect(entry?.status).toBe('replayed');
    await expect(
      ops.retrySelected(
        'notify',
        Array.from({ length: 101 }, (_, i) => String(i)),
        'x',
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('pauses and resumes, promotes delayed jobs and cleans by state in batches', async () => {
    bullpen = testBullpen(server.redis);
    const ops = new QueueOperations(bullpen);
    const queue = bullpen.queues.get('tidy');
    await ops.pause('tidy');
    expect(await queue.isPaused()).toBe(true);
    let overview = await readOverview(bullpen, Date.now());
    expect(overview.queues.find((q) => q.name === 'tidy')?.paused).toBe(true);
    await ops.resume('tidy');
    expect(await queue.isPaused()).toBe(false);

    for (let i = 0; i < 30; i++) await bullpen.dispatcher.dispatch('tidy', {}, { delayMs: 3_600_000 });
    expect(await queue.getDelayedCount()).toBe(30);
    expect((await ops.promoteAll('tidy')).succeeded).toBe(30);
    expect(await queue.getDelayedCount()).toBe(0);

    const ids = await failedJobs(bullpen, 40);
    expect((await ops.clean('notify', 'failed', 0)).succeeded).toBe(40);
    expect(await bullpen.queues.get('notify').getFailedCount()).toBe(0);
    expect(await bullpen.queues.get('notify').getJob(ids[0])).toBeUndefined();
    overview = await readOverview(bullpen, Date.now());
    expect(overview.totals.failed).toBe(0);
    await expect(ops.pause('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('job operations', () => {
  it('retries, duplicates (as it is and edited), promotes and removes one job, refusing what does not apply', async () => {
    bullpen = testBullpen(server.redis);
    const ops = new JobOperations(bullpen);
    const [failedId] = await failedJobs(bullpen, 1, 1);
    expect(await ops.retry('notify', failedId, 'olivia')).toEqual({
      jobId: failedId,
      from: 'failed',
      deadLetterId: deadLetterId('notify', failedId),
    });
    expect((await bullpen.dlq.getByJob('notify', failedId))?.status).toBe('replayed');
    await expect(ops.retry('notify', failedId, 'olivia')).rejects.toMatchObject({ code: 'CONFLICT' });

    const dup = await ops.duplicate('notify', failedId);
    expect(dup.jobId).not.toBe(failedId);
    const copy = await bullpen.queues.get('notify').getJob(dup.jobId);
    expect(copy?.data).toMatchObject({ payload: { webhookId: 'w0', event: 'e', payload: {} }, tenant: { orgId: '42' } });

    // With an edit step: checked as an edit-and-replay is; a refused edit adds no job.
    const edited = await ops.duplicate('notify', failedId, { payload: { webhookId: 'w0', event: 'e-fixed', payload: { n: 1 } } });
    expect(edited.edited).toBe(true);
    expect((await bullpen.queues.get('notify').getJob(edited.jobId))?.data).toMatchObject({
      payload: { webhookId: 'w0', event: 'e-fixed', payload: { n: 1 } },
      tenant: { orgId: '42' },
    });
    const jobsBefore = await bullpen.queues.get('notify').count();
    await expect(ops.duplicate('notify', failedId, { payload: { webhookId: 'w0', event: 7, payload: {} } })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { issues: [expect.objectContaining({ path: ['event'] })] },
    });
    await expect(ops.duplicate('notify', failedId, { payload: { webhookId: 'w9', event: 'e', payload: {} } })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { lockedFields: ['webhookId'] },
    });
    expect(await bullpen.queues.get('notify').count()).toBe(jobsBefore);

    const { jobId: delayedId } = await bullpen.dispatcher.dispatch('tidy', {}, { delayMs: 60_000 });
    await expect(ops.promote('notify', failedId)).rejects.toMatchObject({ code: 'CONFLICT' });
    await ops.promote('tidy', delayedId);
    // tidy's default priority is LOW, so a promoted job is prioritized rather than plain waiting.
    expect(await bullpen.queues.get('tidy').getJobState(delayedId)).toBe('prioritized');

    await ops.remove('tidy', delayedId);
    expect(await bullpen.queues.get('tidy').getJob(delayedId)).toBeUndefined();
    await expect(ops.remove('tidy', delayedId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('bulk operations and the overview', () => {
  it('runs a bulk operation in the background with its progress in Redis and an audit entry at the end', async () => {
    bullpen = testBullpen(server.redis);
    await readyClient(bullpen.redis);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger, bullpen.audit);
    const { operation, finished } = await bulk.start(
      { kind: 'queue.retry-all', target: { kind: 'queue', id: 'q' }, by: 'olivia' },
      async (report) => {
        await report({ succeeded: 5, skipped: 0, failed: 0, total: 10 });
        const mid = await bulk.get(operation.id);
        expect(mid).toMatchObject({ status: 'running', done: 5, total: 10 });
        return { succeeded: 10, skipped: 0, failed: 0, message: 'all retried' };
      },
    );
    expect(operation.status).toBe('running');
    await finished;
    expect(await bulk.get(operation.id)).toMatchObject({ status: 'done', done: 10, succeeded: 10, message: 'all retried' });
    const { entries } = await bullpen.audit.page({ limit: 5 });
    expect(entries[0]).toMatchObject({ actor: 'olivia', action: 'queue.retry-all.finished', details: { succeeded: 10 } });

    const failing = await bulk.start({ kind: 'queue.clean', target: { kind: 'queue', id: 'q' }, by: 'a' }, async () => {
      throw new Error('redis went away');
    });
    expect(await failing.finished).toMatchObject({ status: 'failed', message: 'redis went away' });
    expect(await bulk.get('not-a-uuid')).toBeUndefined();
  });

  it('reads counts, workers and the per-minute series from BullMQ metrics', async () => {
    bullpen = testBullpen(server.redis);
    for (let i = 0; i < 6; i++) await bullpen.dispatcher.dispatch('tidy', {});
    const conn = bullpen.workerConnection();
    let n = 0;
    const worker = new Worker(
      'tidy',
      async () => {
        if (n++ % 3 === 2) throw new UnrecoverableError('boom');
        return 'ok';
      },
      {
        connection: conn,
        prefix: bullpen.keys.queuePrefix('tidy'),
        metrics: { maxDataPoints: 60 },
        name: 'test-worker',
        settings: { backoffStrategy },
      },
    );
    await worker.waitUntilReady();
    const deadline = Date.now() + 20_000;
    let overview = await readOverview(bullpen, Date.now());
    while (Date.now() < deadline) {
      overview = await readOverview(bullpen, Date.now());
      const q = overview.queues.find((x) => x.name === 'tidy')!;
      if (q.counts.waiting + q.counts.prioritized + q.counts.active === 0 && q.counts.delayed === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const q = overview.queues.find((x) => x.name === 'tidy')!;
    expect(q.workers).toBe(1);
    expect(q.workerNames).toEqual(['test-worker']);
    expect(overview.totals.workers).toBe(1);
    const finished = q.series.reduce((s, p) => s + p.completed + p.failed, 0);
    // BullMQ records the first finish as the metric's start; every later one is counted.
    expect(finished).toBeGreaterThanOrEqual(4);
    expect(q.series).toHaveLength(60);
    expect(overview.queues).toHaveLength(bullpen.jobs.names.length);
    expect(overview.deadLetters).toBe(0);
    // The tiles' workers come from one CLIENT LIST, not one per queue (the health
    // status the overview shows reads its own, at most once per its cache TTL).
    await bullpen.redis.config('RESETSTAT');
    await readOverview(bullpen, Date.now());
    const clientLists = /cmdstat_client\|list:calls=(\d+)/.exec(await bullpen.redis.info('commandstats'))?.[1];
    expect(Number(clientLists)).toBeLessThanOrEqual(2);
    await worker.close();
    conn.disconnect();
  });
});
