import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { type JobPage, readJobPage } from '@/dashboard/jobs/job-page';
import type { Bullpen } from '@/lib/bullpen';
import { HttpError } from '@/lib/errors/http-error';
import { AttemptLog } from '@/lib/runtime/attempt-log';
import {
  ATTEMPT_DROPPED_FIELD,
  ATTEMPT_ENTRY_MAX_BYTES,
  ATTEMPT_RECORD_FIELD,
  ATTEMPT_RECORD_MAX_ENTRIES,
  type AttemptRecord,
  readAttemptRecord,
} from '@/lib/runtime/attempt-record';
import type { JobContext, JobHandler } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { poolOf } from '../helpers/pool-of';
import { TEST_JOBS } from '../helpers/test-jobs';
import { useTestRedis } from '../helpers/use-test-redis';

const TYPE = 'notify';
const WORKER = 'bullpen:test-host:4242';
const data = { webhookId: 'w1', event: 'order.created', payload: { id: 1 } };

describe('the attempt record (lib/runtime/attempt-record.ts)', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;
  let attempts: AttemptLog;

  afterEach(async () => {
    await pool?.close(5_000);
    pool = undefined;
    await attempts?.stop();
    vi.restoreAllMocks();
  });

  async function run(handler: JobHandler, flushIntervalMs?: number) {
    bullpen = await server.readyBullpen({ jobs: TEST_JOBS, schedules: [] });
    attempts = new AttemptLog({ redis: bullpen.redis, worker: WORKER, flushIntervalMs });
    pool = poolOf(bullpen, { [TYPE]: handler }, { attempts });
    await pool.start();
  }

  const jobKey = (id: string) => bullpen.queues.get(TYPE).toKey(id);

  /** The job page once the job is completed (and `also` holds), as an operator reads it. */
  async function completedPage(id: string, also: (p: JobPage) => boolean = () => true): Promise<JobPage> {
    let page: JobPage | null = null;
    await expect
      .poll(
        async () => {
          page = await readJobPage(bullpen, TYPE, id);
          return page?.job.state === 'completed' && also(page);
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    return page as unknown as JobPage;
  }

  async function recordOf(id: string, entries: number, timeoutMs = 10_000): Promise<AttemptRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await readAttemptRecord(bullpen.redis, jobKey(id));
      if (record.entries.length >= entries) return record;
      if (Date.now() > deadline) throw new Error(`job ${id} has ${record.entries.length} entries, not ${entries}, after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('records two failed attempts with their backoff, then the one that succeeded', async () => {
    // Full jitter draws random() * ceiling: pinned, the delays are known (400 ms, then 800 ms).
    vi.spyOn(Math, 'random').mockReturnValue(0.4);
    await run(async (ctx: JobContext) => {
      if (ctx.attempt < 3) throw new HttpError(503, `upstream unavailable (attempt ${ctx.attempt})`);
      return { delivered: true };
    });
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { entries, dropped } = await recordOf(jobId, 3);

    expect(dropped).toBe(0);
    expect(entries.map((e) => [e.attempt, e.outcome, e.errorClass, e.message])).toEqual([
      [1, 'retried', 'server', 'upstream unavailable (attempt 1)'],
      [2, 'retried', 'server', 'upstream unavailable (attempt 2)'],
      [3, 'completed', undefined, undefined],
    ]);
    for (const e of entries) {
      expect(e.worker).toBe(WORKER);
      expect(e.start).toBeLessThanOrEqual(e.end);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    // notify's base is 1 s: retry n waits random() * 1 s * 2^(n-1).
    const [b1, b2] = [entries[0].backoffMs as number, entries[1].backoffMs as number];
    expect([b1, b2]).toEqual([400, 800]);
    expect(entries[2].backoffMs).toBeUndefined();
    // The delay the entry names is the one BullMQ applied: the next attempt did not start before it ran out.
    expect((entries[1].start as number) - entries[0].end).toBeGreaterThanOrEqual(b1 - 5);
    expect((entries[2].start as number) - entries[1].end).toBeGreaterThanOrEqual(b2 - 5);
  });

  it('records a permanent failure as failed, with its class and no backoff', async () => {
    await run(async () => {
      throw new HttpError(404, 'receiver not found');
    });
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { entries } = await recordOf(jobId, 1);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      attempt: 1,
      outcome: 'failed',
      errorClass: 'client',
      message: 'receiver not found',
      worker: WORKER,
    });
    expect(entries[0].backoffMs).toBeUndefined();
  });

  it('goes with its job, and a write that comes after the job was removed makes no key', async () => {
    // Entries wait for a flush the test calls itself; a failed attempt is always written.
    await run(async () => {
      throw new HttpError(404, 'receiver not found');
    }, 60_000);
    const queue = bullpen.queues.get(TYPE);
    const first = await bullpen.dispatcher.dispatch(TYPE, data);
    const second = await bullpen.dispatcher.dispatch(TYPE, { ...data, event: 'order.paid' });
    await expect.poll(() => attempts.waiting, { timeout: 10_000 }).toBe(2);

    // The first job is removed before its entry is written: the write must not bring its hash back.
    await queue.remove(first.jobId);
    expect(await attempts.flush()).toBe(1);
    expect(await bullpen.redis.exists(jobKey(first.jobId))).toBe(0);
    expect((await readAttemptRecord(bullpen.redis, jobKey(second.jobId))).entries).toHaveLength(1);

    // BullMQ's own removal (a clean, as retention does) deletes the record with the job's hash.
    await queue.clean(0, 100, 'failed');
    expect(await bullpen.redis.exists(jobKey(second.jobId))).toBe(0);
    expect(await bullpen.redis.hget(jobKey(second.jobId), ATTEMPT_RECORD_FIELD)).toBeNull();
  });

  it('writes nothing for a job that completed at its first attempt; its timeline shows that attempt', async () => {
    await run(async () => ({ delivered: true }), 60_000);
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const page = await completedPage(jobId);
    expect(attempts.waiting).toBe(0);
    expect(await attempts.flush()).toBe(0);
    expect(await bullpen.redis.hget(jobKey(jobId), ATTEMPT_RECORD_FIELD)).toBeNull();

    const job = await bullpen.queues.get(TYPE).getJob(jobId);
    expect(page.attempts.entries).toEqual([
      {
        attempt: 1,
        start: job?.processedOn,
        end: job?.finishedOn,
        durationMs: (job?.finishedOn ?? 0) - (job?.processedOn ?? 0),
        worker: pool?.name,
        outcome: 'completed',
      },
    ]);
  });

  it('keeps a completed run in the timeline when an operator runs the job again', async () => {
    await run(async () => ({ delivered: true }));
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const first = await completedPage(jobId);
    await new JobOperations(bullpen).retry(TYPE, jobId, 'ada');
    const again = await completedPage(jobId, (p) => p.attempts.entries.length === 2);

    expect(again.attempts.entries.map((e) => [e.attempt, e.outcome, e.worker])).toEqual([
      [1, 'completed', pool?.name],
      [1, 'completed', pool?.name],
    ]);
    expect(again.attempts.entries[0]).toEqual(first.attempts.entries[0]);
    expect(again.attempts.entries[1].start).toBeGreaterThanOrEqual(again.attempts.entries[0].end);
  });

  it('notes a lost attempt the stalled check found, on a job that is still there only', async () => {
    await run(async () => ({ delivered: true }), 60_000);
    const queue = bullpen.queues.get(TYPE);
    // Waiting jobs no worker runs (the pool is closed): the stalled event names a job by id alone.
    await pool?.close(5_000);
    pool = undefined;
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    attempts.stalled(queue.qualifiedName, jobId);
    attempts.stalled(queue.qualifiedName, 'no-such-job');
    expect(await attempts.flush()).toBe(1);
    const { entries } = await readAttemptRecord(bullpen.redis, jobKey(jobId));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ outcome: 'stalled', errorClass: 'stalled' });
    expect(entries[0].attempt).toBeUndefined();
    expect(entries[0].start).toBeUndefined();
    expect(await bullpen.redis.exists(jobKey('no-such-job'))).toBe(0);
  });

  it('keeps the first attempt and the latest within the bound, each entry within its bytes', async () => {
    const total = 40;
    // A long message of characters JSON writes as six bytes each (\u0007): cut to fit the entry's bytes.
    const long = '\u0007'.repeat(5_000);
    await run(async (ctx: JobContext) => {
      throw new HttpError(503, `attempt ${ctx.attempt}: ${long}`);
    });
    // A plain producer's job with its own attempts and no delay between them (docs/producers.md).
    const job = await bullpen.queues.get(TYPE).add(TYPE, data, { attempts: total, backoff: { type: 'fixed', delay: 0 } });
    const id = String(job.id);
    await expect
      .poll(async () => (await readAttemptRecord(bullpen.redis, jobKey(id))).entries.at(-1)?.outcome, { timeout: 30_000 })
      .toBe('failed');
    const { entries, dropped } = await readAttemptRecord(bullpen.redis, jobKey(id));

    expect(entries).toHaveLength(ATTEMPT_RECORD_MAX_ENTRIES);
    const kept = [1, ...Array.from({ length: ATTEMPT_RECORD_MAX_ENTRIES - 1 }, (_, i) => total - ATTEMPT_RECORD_MAX_ENTRIES + 2 + i)];
    expect(entries.map((e) => e.attempt)).toEqual(kept);
    expect(dropped).toBe(total - ATTEMPT_RECORD_MAX_ENTRIES);
    expect(await bullpen.redis.hget(jobKey(id), ATTEMPT_DROPPED_FIELD)).toBe(String(total - ATTEMPT_RECORD_MAX_ENTRIES));
    expect(entries.slice(0, -1).every((e) => e.outcome === 'retried' && e.backoffMs === 0)).toBe(true);
    const lines = ((await bullpen.redis.hget(jobKey(id), ATTEMPT_RECORD_FIELD)) ?? '').split('\n');
    expect(lines).toHaveLength(ATTEMPT_RECORD_MAX_ENTRIES);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(ATTEMPT_ENTRY_MAX_BYTES);
    expect(entries[0].message?.startsWith('attempt 1: \u0007\u0007')).toBe(true);
    expect(entries[0].message?.endsWith('…')).toBe(true);
  });
});
