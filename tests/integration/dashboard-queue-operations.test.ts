import { Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { CLEAN_BATCH, describeRetrySkips, QueueOperations, skipOf } from '@/dashboard/queues/queue-operations';
import { deadLetterId } from '@/lib/dlq/entry';
import { useTestRedis } from '../helpers/use-test-redis';
import { refusal } from '../helpers/refusal';

/**
 * dashboard/queues/queue-operations.ts one rule at a time, beside dashboard-operations.test.ts
 * and retry-all-preview.test.ts: which failed jobs a retry reaches and in what order, what it
 * does with one BullMQ will not retry, what each refusal says, and what each report carries.
 */
const server = useTestRedis();
afterEach(() => {
  vi.restoreAllMocks();
});

const TYPE = 'notify';

/** `n` notify jobs moved to the failed set as a worker's final failure would, the k-th at `at + k`. */
async function failed(b: Bullpen, n: number, at = Date.now() - 60_000): Promise<string[]> {
  const queue = b.queues.get(TYPE);
  await queue.waitUntilReady();
  const ids: string[] = [];
  for (let start = 0; start < n; start += 500) {
    const jobs = await b.dispatcher.dispatchBulk(
      Array.from({ length: Math.min(500, n - start) }, (_, k) => ({
        type: TYPE,
        data: { webhookId: `w${start + k}`, event: 'e', payload: {} } as never,
      })),
    );
    ids.push(...jobs.map((j) => j.jobId));
  }
  const pipe = b.redis.pipeline();
  ids.forEach((id, k) => {
    pipe.zrem(queue.toKey('prioritized'), id);
    pipe.lrem(queue.toKey('wait'), 0, id);
    pipe.hset(queue.toKey(id), { finishedOn: String(at + k), failedReason: 'HTTP 503', atm: '10' });
    pipe.zadd(queue.toKey('failed'), at + k, id);
  });
  await pipe.exec();
  return ids;
}

async function withLetter(b: Bullpen, jobId: string): Promise<string> {
  const job = await b.queues.get(TYPE).getJob(jobId);
  const { id } = await b.dlq.record({
    queue: TYPE,
    jobId,
    jobType: TYPE,
    jobData: job!.data,
    error: { message: 'HTTP 503', errorClass: 'server' },
    attempts: 10,
    failedAt: Date.now(),
    source: 'runtime',
  });
  return id;
}

describe('QueueOperations', () => {
  it('names a destructive type it will not retry in bulk, and a selection too large', async () => {
    const b = await server.readyBullpen();
    const ops = new QueueOperations(b);
    const destructive = {
      code: 'FORBIDDEN',
      message: 'erase destroys data: retry its jobs one at a time on their own page, as an admin typing the org id',
      details: { type: 'erase', destructive: true },
    };
    expect(await refusal(ops.checkBulkRetry('erase'))).toMatchObject(destructive);
    expect(await refusal(ops.retrySelected('erase', ['1'], 'ops'))).toMatchObject(destructive);
    expect(await refusal(ops.retryAllFailed('erase', 'ops'))).toMatchObject(destructive);
    const many = Array.from({ length: 101 }, (_, i) => String(i));
    expect(await refusal(ops.retrySelected(TYPE, many, 'ops'))).toMatchObject({
      code: 'VALIDATION',
      message: 'Select at most 100 jobs at once; use "Retry all" for more',
    });
    // 100 is one page: allowed (each is gone, so each is a skip).
    expect(await ops.retrySelected(TYPE, many.slice(1), 'ops')).toMatchObject({ skipped: 100, skippedBecause: { gone: 100 } });
  });

  it('retries a job named twice in a selection once', async () => {
    const b = await server.readyBullpen();
    const [a, c] = await failed(b, 2);
    expect(await new QueueOperations(b).retrySelected(TYPE, [a, a, c], 'ops')).toEqual({
      succeeded: 2,
      skipped: 0,
      failed: 0,
      skippedBecause: {},
      message: undefined,
    });
  });

  it('retries the oldest failed first, only those failed by `before`, at most `limit`, reporting the total and each batch', async () => {
    const b = await server.readyBullpen();
    const t0 = Date.now() - 60_000;
    const ids = await failed(b, 6, t0);
    const reports: unknown[] = [];
    const counts = await new QueueOperations(b).retryAllFailed(TYPE, 'ops', async (p) => void reports.push(p), {
      before: t0 + 4,
      limit: 3,
      batchSize: 2,
    });
    expect(counts).toEqual({ succeeded: 3, skipped: 0, failed: 0, skippedBecause: {}, message: undefined });
    const zero = { succeeded: 0, skipped: 0, failed: 0, skippedBecause: {} };
    expect(reports).toEqual([
      { ...zero, total: 3 },
      { ...zero, succeeded: 2, total: 3 },
      { ...zero, succeeded: 3, total: 3 },
    ]);
    const queue = b.queues.get(TYPE);
    expect(await Promise.all(ids.map((id) => queue.getJobState(id)))).toEqual([
      'prioritized',
      'prioritized',
      'prioritized',
      'failed',
      'failed',
      'failed',
    ]);
    // Without a limit: every job failed by `before` (t0 + 4), one at a time even when asked for none.
    const rest = await new QueueOperations(b).retryAllFailed(TYPE, 'ops', undefined, { before: t0 + 4, batchSize: 0 });
    expect(rest).toMatchObject({ succeeded: 2, skipped: 0 });
    expect(await queue.getJobState(ids[5])).toBe('failed');
    // `before` defaults to now.
    expect(await new QueueOperations(b).retryAllFailed(TYPE, 'ops')).toMatchObject({ succeeded: 1 });
  });

  it('skips past a job BullMQ would not retry, counts it failed, and gives its dead letter back; one that left the set is gone', async () => {
    const b = await server.readyBullpen();
    const ids = await failed(b, 5);
    const letter = await withLetter(b, ids[0]);
    const queue = b.queues.get(TYPE);
    const original = Job.prototype.retry;
    vi.spyOn(Job.prototype, 'retry').mockImplementation(async function (this: Job, ...args) {
      if (this.id === ids[0]) throw new Error('connection reset');
      if (this.id === ids[1]) throw new Error(`Job ${this.id} is not in the failed state. retryJob`);
      if (this.id === ids[2]) {
        // Retried by someone else meanwhile, then BullMQ's answer is any error at all.
        await original.apply(this, args);
        throw new Error('lost');
      }
      return original.apply(this, args);
    });
    const reports: unknown[] = [];
    const counts = await new QueueOperations(b).retryAllFailed(TYPE, 'ops', async (p) => void reports.push(p), { batchSize: 2 });
    expect(counts).toEqual({
      succeeded: 2,
      skipped: 2,
      failed: 1,
      skippedBecause: { gone: 2 },
      message: '2 skipped: 2 no longer failed',
    });
    expect(reports).toHaveLength(4);
    expect(await queue.getJobState(ids[0])).toBe('failed');
    expect(await b.dlq.get(letter)).toMatchObject({ status: 'pending', replays: [] });
  });

  it('starts a retried failure’s attempts over: made and started both at 0', async () => {
    const b = await server.readyBullpen();
    const [id] = await failed(b, 1);
    const key = b.queues.get(TYPE).toKey(id);
    await b.redis.hset(key, 'ats', '10');
    expect(await new QueueOperations(b).retryAllFailed(TYPE, 'ops')).toMatchObject({ succeeded: 1 });
    // BullMQ resets them by removing the fields.
    expect(await b.redis.hmget(key, 'atm', 'ats')).toEqual([null, null]);
  });

  it('skips past a job failed at `before` itself that BullMQ will not retry, once', async () => {
    const b = await server.readyBullpen();
    const t0 = Date.now() - 60_000;
    const ids = await failed(b, 2, t0);
    vi.spyOn(Job.prototype, 'retry').mockRejectedValue(new Error('connection reset'));
    // `before` is ids[0]'s own time: it is in range, and still in the set after the batch.
    const counts = await new QueueOperations(b).retryAllFailed(TYPE, 'ops', undefined, { before: t0, limit: 5, batchSize: 1 });
    expect(counts).toMatchObject({ succeeded: 0, skipped: 0, failed: 1 });
    expect(await b.queues.get(TYPE).getJobState(ids[1])).toBe('failed');
  });

  it('counts the skips of every batch by their reason', async () => {
    const b = await server.readyBullpen();
    const ids = await failed(b, 4);
    const letters = await Promise.all(ids.map((id) => withLetter(b, id)));
    await b.dlq.replay(letters[0], { by: 'dora' });
    await b.dlq.discard(letters[1], 'dora');
    await b.dlq.discard(letters[3], 'dora');
    await b.redis.del(b.queues.get(TYPE).toKey(ids[2]));
    const counts = await new QueueOperations(b).retryAllFailed(TYPE, 'ops', undefined, { batchSize: 1 });
    expect(counts).toEqual({
      succeeded: 0,
      skipped: 4,
      failed: 0,
      skippedBecause: { replayed: 1, discarded: 2, gone: 1 },
      message: '4 skipped: 1 already replayed from the dead letters, 2 dead letter discarded, 1 no longer failed',
    });
    expect(await b.dlq.get(deadLetterId(TYPE, ids[3]))).toMatchObject({ status: 'discarded' });
  });

  it('says the skips in words, in one order, and nothing when there are none', () => {
    expect(describeRetrySkips({ succeeded: 1, skipped: 0, failed: 0, skippedBecause: {} })).toBeUndefined();
    expect(describeRetrySkips({ succeeded: 0, skipped: 3, failed: 0, skippedBecause: { gone: 1, discarded: 2 } })).toBe(
      '3 skipped: 2 dead letter discarded, 1 no longer failed',
    );
    expect(skipOf('discarded')).toBe('discarded');
    expect(skipOf('superseded')).toBe('replayed');
    expect(skipOf('replayed')).toBe('replayed');
  });

  it('previews page by page, counts only what failed by `now`, and neither a job gone meanwhile nor one past the limit', async () => {
    const b = await server.readyBullpen();
    const t0 = Date.now() - 60_000;
    const ids = await failed(b, 1_003, t0);
    const ops = new QueueOperations(b);
    expect(await ops.retryPreview(TYPE, undefined, t0 + 1_001)).toEqual({
      asOf: t0 + 1_001,
      failed: 1_002,
      scanned: 1_002,
      willRetry: 1_002,
      willSkip: { replayed: 0, discarded: 0 },
    });
    expect(await ops.retryPreview(TYPE, 1_001, t0 + 1_001)).toMatchObject({ failed: 1_002, scanned: 1_001, willRetry: 1_001 });
    // A job whose hash is gone is neither; one whose data is not JSON is still retried.
    await b.redis.del(b.queues.get(TYPE).toKey(ids[0]));
    await b.redis.hset(b.queues.get(TYPE).toKey(ids[1]), 'data', '{not json');
    await b.dlq.discard(await withLetter(b, ids[2]), 'dora');
    expect(await ops.retryPreview(TYPE, 3, t0 + 1_001)).toMatchObject({
      scanned: 3,
      willRetry: 1,
      willSkip: { replayed: 0, discarded: 1 },
    });
  });

  it('promotes every delayed job, reporting while it runs and the count it promoted', async () => {
    const b = await server.readyBullpen();
    for (let i = 0; i < 3; i++) await b.dispatcher.dispatch('tidy', {}, { delayMs: 3_600_000 });
    const queue = b.queues.get('tidy');
    const promote = queue.promoteJobs.bind(queue);
    // BullMQ's promotion takes its time: the progress is read while it runs.
    queue.promoteJobs = async (opts) => {
      await promote(opts);
      await new Promise((r) => setTimeout(r, 1_500));
    };
    const reports: unknown[] = [];
    try {
      expect(await new QueueOperations(b).promoteAll('tidy', async (p) => void reports.push(p))).toEqual({
        succeeded: 3,
        skipped: 0,
        failed: 0,
      });
    } finally {
      queue.promoteJobs = promote;
    }
    expect(reports[0]).toEqual({ succeeded: 0, skipped: 0, failed: 0, total: 3 });
    expect(reports.slice(1)).toContainEqual({ succeeded: 3, skipped: 0, failed: 0, total: 3 });
    expect(await queue.getDelayedCount()).toBe(0);
  });

  it('refuses an age that is not a whole number of milliseconds ≥ 0, and reports what a clean removed', async () => {
    const b = await server.readyBullpen();
    const ops = new QueueOperations(b);
    for (const age of [-1, 1.5]) {
      expect(await refusal(ops.clean(TYPE, 'failed', age))).toMatchObject({
        code: 'VALIDATION',
        message: 'The age must be a whole number of milliseconds ≥ 0',
      });
    }
    await failed(b, 3);
    const reports: unknown[] = [];
    expect(await ops.clean(TYPE, 'failed', 0, async (p) => void reports.push(p))).toEqual({ succeeded: 3, skipped: 0, failed: 0 });
    expect(reports).toEqual([{ succeeded: 3, skipped: 0, failed: 0 }]);
    expect(await b.queues.get(TYPE).getFailedCount()).toBe(0);
  });

  it('cleans past BullMQ’s limit per call, one call after another until one removes fewer', async () => {
    const b = await server.readyBullpen();
    const queue = b.queues.get(TYPE);
    await queue.waitUntilReady();
    const n = CLEAN_BATCH + 1;
    const at = Date.now() - 60_000;
    const pipe = b.redis.pipeline();
    for (let k = 0; k < n; k++) {
      pipe.hset(queue.toKey(`c${k}`), { name: TYPE, data: '{}', timestamp: String(at), finishedOn: String(at + k) });
      pipe.zadd(queue.toKey('failed'), at + k, `c${k}`);
    }
    await pipe.exec();
    const reports: unknown[] = [];
    expect(await new QueueOperations(b).clean(TYPE, 'failed', 0, async (p) => void reports.push(p))).toMatchObject({ succeeded: n });
    expect(reports).toEqual([
      { succeeded: CLEAN_BATCH, skipped: 0, failed: 0 },
      { succeeded: n, skipped: 0, failed: 0 },
    ]);
    expect(await queue.getFailedCount()).toBe(0);
  });
});
