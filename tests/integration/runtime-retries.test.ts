import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { HttpError } from '@/lib/errors/http-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { silentLogger } from '@/lib/logging/logger';
import type { JobContext, JobHandler } from '@/lib/runtime/handler';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';
import { expectFullJitter, firstRetryDelays, JITTER_SAMPLES, retryDelays } from '../helpers/jitter-spread';

/** The real DLQ store, with what the runtime handed it kept for assertions. */
class ListSink implements DeadLetterSink {
  readonly entries: DeadLetterInput[] = [];
  constructor(private readonly dlq: DeadLetterSink) {}
  async record(input: DeadLetterInput) {
    const result = await this.dlq.record(input);
    if (result.created) this.entries.push(input);
    return result;
  }
}

describe('the runtime’s retries, permanent failures and timeouts', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;
  let sink: ListSink;

  afterEach(async () => {
    await pool?.close(5_000);
    pool = undefined;
    await bullpen?.close();
  });

  async function run(handler: JobHandler, opts: { timeoutMs?: number } = {}) {
    bullpen = testBullpen(server.redis);
    sink = new ListSink(bullpen.dlq);
    pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: { notify: handler },
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
      timeoutMs: opts.timeoutMs,
    });
    await pool.start();
  }

  const data = { webhookId: 'w1', event: 'order.created', payload: { id: 1 } };

  it('retries a transient failure with full-jitter delays, then succeeds', async () => {
    const attempts: Array<{ attempt: number; at: number }> = [];
    const failedAt: number[] = [];
    await run(async (ctx: JobContext) => {
      attempts.push({ attempt: ctx.attempt, at: Date.now() });
      await ctx.progress(10, 'sending');
      if (ctx.attempt < 3) {
        failedAt.push(Date.now());
        throw new HttpError(503, 'upstream unavailable');
      }
      await ctx.progress(50, 'sending');
      await ctx.log('delivered to the receiver');
      await ctx.progress(100, 'complete');
      return { delivered: true };
    });
    const { jobId } = await bullpen.dispatcher.dispatch('notify', data);
    const job = await waitForState(bullpen, jobId, 'completed', 15_000);

    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(job.returnvalue).toEqual({ delivered: true });
    // notify's base is 1 s: retry n waits random(0, 1 s * 2^(n-1)).
    // 400 ms of slack covers BullMQ promoting the delayed job and the worker's poll.
    const gap1 = attempts[1].at - failedAt[0];
    const gap2 = attempts[2].at - failedAt[1];
    expect(gap1).toBeLessThan(1_000 + 400);
    expect(gap2).toBeLessThan(2_000 + 400);
    // The second retry waited out the delay the runtime drew for it, below its 2 s ceiling
    // (the read is at most a round trip low; the spread is the next test's).
    const queue = bullpen.queues.get('notify');
    const delays = (await retryDelays(bullpen.redis, queue.keys.events)).get(jobId);
    expect(delays).toHaveLength(2);
    const delay2 = delays![1];
    expect(delay2).toBeLessThanOrEqual(2_000);
    expect(gap2).toBeGreaterThanOrEqual(delay2);
    expect(sink.entries).toHaveLength(0);
    // The job's own log (the dashboard's Logs panel): each phase once per attempt, each
    // failed attempt with its class and message, and the handler's own line.
    const { logs } = await bullpen.queues.get('notify').getJobLogs(jobId);
    const text = logs.map((l) => l.replace(/^\S+ /, ''));
    expect(text).toEqual([
      '10% sending',
      'attempt 1/10 failed (server): upstream unavailable; will retry',
      '10% sending',
      'attempt 2/10 failed (server): upstream unavailable; will retry',
      '10% sending',
      'delivered to the receiver',
      '100% complete',
    ]);
    expect(logs[0]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  }, 20_000);

  it('spreads first retries over the whole full-jitter window', async () => {
    await run(async (ctx: JobContext) => {
      if (ctx.attempt === 1) throw new HttpError(503, 'upstream unavailable');
      return 'ok';
    });
    const dispatched = await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: JITTER_SAMPLES }, (_, n) => ({ type: 'notify' as const, data: { ...data, payload: { n } } })),
    );
    const jobs = await Promise.all(dispatched.map((d) => waitForState(bullpen, d.jobId, 'completed', 15_000)));

    expect(jobs.map((j) => j.attemptsMade)).toEqual(jobs.map(() => 2));
    // Each job's one retry waited random(0, 1 s): notify's base delay.
    const queue = bullpen.queues.get('notify');
    expectFullJitter(await firstRetryDelays(bullpen.redis, queue.keys.events, jobs), 1_000);
  }, 20_000);

  it('fails a permanent error at once and records its dead letter with the validation message', async () => {
    let calls = 0;
    await run(async () => {
      calls++;
      return 'should never run';
    });
    // A producer that bypassed the dispatcher: the runtime validates again.
    const queue = bullpen.queues.get('notify');
    const job = await queue.add('notify', {
      payload: { webhookId: 'w1', event: 42 },
      requestId: 'r-1',
      dispatchedAt: Date.now(),
      tenant: { orgId: 'org-9' },
    });
    const failed = await waitForState(bullpen, job.id!, 'failed', 10_000);

    expect(calls).toBe(0);
    expect(failed.attemptsMade).toBe(1);
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      queue: 'notify',
      jobId: job.id,
      attempts: 1,
      tenant: { orgId: 'org-9' },
      source: 'runtime',
      error: { errorClass: 'validation' },
    });
    expect(sink.entries[0].error.message).toMatch(/Invalid notify payload/);
    expect(sink.entries[0].error.message).toMatch(/event/);
    // ... and it is in the dead-letter queue, pending, findable by type and tenant.
    const { entries } = await bullpen.dlq.list({ type: 'notify', tenant: 'org-9' });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ originalJobId: job.id, status: 'pending', attempts: 1, error: { errorClass: 'validation' } });
    expect(entries[0].error.message).toMatch(/Invalid notify payload/);
  });

  it('fails a 4xx at once, without using its remaining attempts', async () => {
    let calls = 0;
    await run(async () => {
      calls++;
      throw new HttpError(400, 'bad request');
    });
    const { jobId } = await bullpen.dispatcher.dispatch('notify', data);
    const failed = await waitForState(bullpen, jobId, 'failed', 10_000);
    expect(calls).toBe(1);
    expect(failed.attemptsMade).toBe(1);
    expect(sink.entries[0].error).toMatchObject({ errorClass: 'client', code: 'HTTP_400' });
  });

  it('aborts the signal of an attempt that runs past its time limit, then retries', async () => {
    const reasons: unknown[] = [];
    await run(
      async (ctx) => {
        if (ctx.attempt === 1) {
          // A well-behaved handler hands its signal to its I/O; this one just waits on it.
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => {
              reasons.push(ctx.signal.reason);
              reject(ctx.signal.reason);
            }),
          );
        }
        return 'second attempt done';
      },
      { timeoutMs: 300 },
    );
    const { jobId } = await bullpen.dispatcher.dispatch('notify', data);
    const job = await waitForState(bullpen, jobId, 'completed', 10_000);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(TimeoutError);
    // BullMQ counts the completing attempt too: one timed out, one succeeded.
    expect(job.attemptsMade).toBe(2);
    expect(job.returnvalue).toBe('second attempt done');
  });

  it('does not wait for a handler that ignores its signal', async () => {
    await run(
      async (ctx) => {
        if (ctx.attempt === 1) await new Promise((r) => setTimeout(r, 60_000));
        return 'ok';
      },
      { timeoutMs: 300 },
    );
    const { jobId } = await bullpen.dispatcher.dispatch('notify', data, { attempts: 2 });
    const job = await waitForState(bullpen, jobId, 'completed', 10_000);
    expect((job.stacktrace ?? []).join('\n')).toMatch(/timed out after 300 ms/);
  });

  it('records the dead letter when the attempts run out', async () => {
    await run(async () => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    });
    const { jobId } = await bullpen.dispatcher.dispatch('notify', data, {
      attempts: 2,
      tenant: { orgId: 'o1', workspaceId: 'w2' },
    });
    await waitForState(bullpen, jobId, 'failed', 10_000);
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      attempts: 2,
      error: { errorClass: 'network', code: 'ECONNRESET' },
      tenant: { orgId: 'o1', workspaceId: 'w2' },
    });
  });

  it('makes a duplicate dispatch with the same idempotency key a no-op', async () => {
    await run(async () => 'ok');
    const a = await bullpen.dispatcher.dispatch('notify', data, { idempotencyKey: 'webhook:u1:order-1:notify:v1' });
    const b = await bullpen.dispatcher.dispatch('notify', data, { idempotencyKey: 'webhook:u1:order-1:notify:v1' });
    expect(b.jobId).toBe(a.jobId);
    expect(a.deduplicated).toBe(false);
    expect(b.deduplicated).toBe(true);
    await waitForState(bullpen, a.jobId, 'completed', 10_000);
    const counts = await bullpen.queues.get('notify').getJobCounts('completed', 'waiting', 'prioritized');
    expect(counts).toEqual({ completed: 1, waiting: 0, prioritized: 0 });
  });
});

async function waitForState(bullpen: Bullpen, jobId: string, state: 'completed' | 'failed', timeoutMs: number) {
  const queue = bullpen.queues.get('notify');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await queue.getJobState(jobId);
    if (s === state) return (await queue.getJob(jobId))!;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is ${s}, not ${state}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
