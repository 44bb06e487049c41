import { describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { deadLetterId, replayJobId } from '@/lib/dlq/entry';
import { useTestRedis } from '../helpers/use-test-redis';

const server = useTestRedis();
const TYPE = 'notify';

/** Moves jobs to the failed set as a worker's final failure would, at `at`. */
async function fail(b: Bullpen, ids: string[], at: number): Promise<void> {
  const queue = b.queues.get(TYPE);
  const pipe = b.redis.pipeline();
  for (const id of ids) {
    pipe.zrem(queue.toKey('prioritized'), id);
    pipe.lrem(queue.toKey('wait'), 0, id);
    pipe.hset(queue.toKey(id), { finishedOn: String(at), failedReason: 'HTTP 503', atm: '10' });
    pipe.zadd(queue.toKey('failed'), at, id);
  }
  await pipe.exec();
}

/** The runtime's account of a final failure of job `jobId`. */
async function record(b: Bullpen, jobId: string, at: number): Promise<void> {
  const job = await b.queues.get(TYPE).getJob(jobId);
  await b.dlq.record({
    queue: TYPE,
    jobId,
    jobType: TYPE,
    jobData: job!.data,
    error: { message: 'HTTP 503', errorClass: 'server' },
    attempts: 10,
    failedAt: at,
    source: 'runtime',
  });
}

/**
 * Six failed jobs with dead letters: #0 replayed (its replay waits), #1 discarded, #2
 * replayed and its replay failed too (the record is pending again, on the replay's job),
 * #3-#5 untouched.
 */
async function scene(b: Bullpen) {
  const queue = b.queues.get(TYPE);
  await queue.waitUntilReady();
  const dispatched = await b.dispatcher.dispatchBulk(
    Array.from({ length: 6 }, (_, k) => ({ type: TYPE, data: { webhookId: `w${k}`, event: 'e', payload: {} } as never })),
  );
  const ids = dispatched.map((d) => d.jobId);
  const t0 = Date.now() - 10_000;
  await fail(b, ids, t0);
  for (const id of ids) await record(b, id, t0);
  const entry = (k: number) => deadLetterId(TYPE, ids[k]);
  await b.dlq.replay(entry(0), { by: 'dora' });
  await b.dlq.discard(entry(1), 'dora');
  await b.dlq.replay(entry(2), { by: 'dora' });
  const replayOf2 = replayJobId(entry(2), 1);
  const t1 = Date.now();
  await fail(b, [replayOf2], t1);
  await record(b, replayOf2, t1);
  return { ids, entry, replayOf0: replayJobId(entry(0), 1), replayOf2 };
}

describe('retry all failed: the preview is the result', () => {
  it('counts what it will retry and skip, chains included, and the run does exactly that', async () => {
    const b = await server.readyBullpen();
    const { ids, replayOf2, entry } = await scene(b);
    const ops = new QueueOperations(b);
    const preview = await ops.retryPreview(TYPE);
    // Seven failed: the six originals and #2's failed replay. Of #2's chain only the newest
    // failed job (the replay) runs again; the original would resend the stale payload.
    expect(preview).toMatchObject({ failed: 7, scanned: 7, willRetry: 4, willSkip: { replayed: 2, discarded: 1 } });

    // A job failing after the preview is not part of what was confirmed.
    const [late] = await b.dispatcher.dispatchBulk([{ type: TYPE, data: { webhookId: 'late', event: 'e', payload: {} } as never }]);
    await fail(b, [late.jobId], Date.now() + 5);

    const result = await ops.retryAllFailed(TYPE, 'olivia', undefined, { before: preview.asOf, limit: preview.scanned, batchSize: 2 });
    expect(result).toMatchObject({
      succeeded: preview.willRetry,
      skipped: preview.willSkip.replayed + preview.willSkip.discarded,
      failed: 0,
      skippedBecause: preview.willSkip,
    });
    const queue = b.queues.get(TYPE);
    expect(await queue.getJobState(late.jobId)).toBe('failed');
    expect(await queue.getJobState(ids[2])).toBe('failed');
    expect(await queue.getJobState(replayOf2)).not.toBe('failed');
    expect((await b.dlq.get(entry(2)))?.replays.map((r) => r.newJobId)).toEqual([replayOf2, replayOf2]);
  });

  it('marks the failed rows and the job page whose Retry would be refused, and refuses the stale original', async () => {
    const b = await server.readyBullpen();
    const { ids, replayOf0, replayOf2, entry } = await scene(b);
    const page = await readQueuePage(b, TYPE, parseQueueFilters({ state: 'failed' }));
    const marks = Object.fromEntries(page.jobs.map((j) => [j.id, j.retryRefused]));
    expect(marks[ids[0]]).toEqual({ why: 'replayed', deadLetterId: entry(0), replayedAs: replayOf0 });
    expect(marks[ids[1]]).toEqual({ why: 'discarded', deadLetterId: entry(1) });
    expect(marks[ids[2]]).toEqual({ why: 'superseded', deadLetterId: entry(2), replayedAs: replayOf2 });
    expect(marks[replayOf2]).toBeUndefined();
    expect(marks[ids[3]]).toBeUndefined();

    expect((await readJobPage(b, TYPE, ids[2]))?.retryRefused).toMatchObject({ why: 'superseded', replayedAs: replayOf2 });
    expect((await readJobPage(b, TYPE, ids[3]))?.retryRefused).toBeUndefined();

    const jobs = new JobOperations(b);
    await expect(jobs.retry(TYPE, ids[2], 'olivia')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`replayed as ${replayOf2}`),
    });
    expect(await b.queues.get(TYPE).getJobState(ids[2])).toBe('failed');
    expect(await jobs.retry(TYPE, replayOf2, 'olivia')).toMatchObject({ jobId: replayOf2, deadLetterId: entry(2) });
  });
});
