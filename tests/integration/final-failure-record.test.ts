import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobContext, JobHandler } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';
import { poolOf } from '../helpers/pool-of';

/*
 * A final failure's dead letter is written once BullMQ has recorded the failure
 * (lib/runtime/final-failures.ts, docs/decisions/0003-dead-letters.md). A failure BullMQ
 * refuses, because the job's lock was lost (as when Redis restarts without its last
 * writes, or a stall), leaves the job to run again and no dead letter beside it.
 */
describe('a final failure and its dead letter', () => {
  const server = useTestRedis();
  const TYPE = 'notify';
  const data = { webhookId: 'w1', event: 'order.created', payload: { id: 1 } };
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;

  afterEach(async () => {
    await pool?.close(5_000);
    pool = undefined;
    await bullpen?.close();
  });

  async function run(handler: JobHandler, opts: { sinkDelayMs?: number } = {}) {
    bullpen = testBullpen(server.redis);
    const b = bullpen;
    const delay = opts.sinkDelayMs ?? 0;
    const sink = { record: async (input: DeadLetterInput) => (await sleep(delay), b.dlq.record(input)) };
    // The stalled check takes back a job whose lock is gone within a second or two.
    pool = poolOf(bullpen, { [TYPE]: handler }, { sink, stalledIntervalMs: 1_000, lockDurationMs: 1_000 });
    await pool.start();
  }

  async function settle(jobId: string, timeoutMs = 20_000) {
    const queue = bullpen.queues.get(TYPE);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await queue.getJobState(jobId);
      if (state === 'completed' || state === 'failed') return { state, job: (await queue.getJob(jobId))! };
      if (Date.now() > deadline) throw new Error(`job ${jobId} is ${state} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The job's dead letter, written just after BullMQ's failed event: waited for up to 2 s. */
  function letterOf(jobId: string, jobData: unknown) {
    return vi.waitFor(
      async () => {
        const letter = await bullpen.dlq.getByJob(TYPE, jobId, jobData);
        if (!letter) throw new Error(`no dead letter yet for job ${jobId}`);
        return letter;
      },
      { timeout: 2_000, interval: 20 },
    );
  }

  it('is written for a failure BullMQ recorded, at BullMQ’s time of the failure', async () => {
    await run(async () => {
      throw new PermanentError('the receiver is gone', 'GONE');
    });
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { state, job } = await settle(jobId);
    expect(state).toBe('failed');
    const letter = await letterOf(jobId, job.data);
    expect(letter).toMatchObject({ status: 'pending', originalJobId: jobId, failedAt: job.finishedOn });
    expect(letter?.error).toMatchObject({ message: 'the receiver is gone', code: 'GONE' });
  });

  it('keeps the payload as it was enqueued, whatever the handler did to the data it was given', async () => {
    // The handler gets the payload's own objects when zod would give them back unchanged
    // (lib/jobs/json-fast-check.ts); the dead letter is read again from BullMQ's JSON.
    await run(async (ctx: JobContext) => {
      const given = ctx.data as Partial<typeof data>;
      given.event = 'rewritten';
      (given.payload as Record<string, unknown>).id = 2;
      delete given.webhookId;
      throw new PermanentError('the receiver is gone', 'GONE');
    });
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { state, job } = await settle(jobId);
    expect(state).toBe('failed');
    const letter = await letterOf(jobId, job.data);
    expect(letter?.payload).toEqual(data);
    expect(letter?.jobData).toMatchObject({ payload: data });
  });

  it('is not written for a failure BullMQ refused because the lock was lost; the job runs again and completes', async () => {
    const queue = () => bullpen.queues.get(TYPE);
    let runs = 0;
    let lockRemoved = 0;
    await run(async (ctx: JobContext) => {
      runs++;
      if (runs > 1) return 'delivered';
      lockRemoved = await bullpen.redis.del(`${queue().qualifiedName}:${ctx.jobId}:lock`);
      throw new PermanentError('judged final while the lock was already gone');
    });
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { state, job } = await settle(jobId);

    expect(lockRemoved).toBe(1);
    expect(state).toBe('completed');
    expect(runs).toBe(2);
    // Time for a write that should not happen to land.
    await new Promise((r) => setTimeout(r, 300));
    expect(await bullpen.dlq.getByJob(TYPE, jobId, job.data)).toBeUndefined();
    expect(await bullpen.dlq.pendingCount()).toBe(0);
  });

  it('is written before a close of the pool returns, when the job failed just before it', async () => {
    await run(
      async () => {
        throw new PermanentError('failed as the worker stops');
      },
      { sinkDelayMs: 500 },
    );
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, data);
    const { state, job } = await settle(jobId);
    expect(state).toBe('failed');
    await pool?.close(5_000);
    pool = undefined;
    expect(await bullpen.dlq.getByJob(TYPE, jobId, job.data)).toMatchObject({ status: 'pending', originalJobId: jobId });
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
