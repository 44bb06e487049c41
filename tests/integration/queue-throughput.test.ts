import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { QueueThroughput } from '@/dashboard/queues/queue-throughput';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import type { JobHandler } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { poolOf } from '../helpers/pool-of';

const TYPE = 'notify';
const data = { webhookId: 'w1', event: 'throughput.test', payload: {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A handler that records when each run started and how many ran at once. */
class Recorder {
  running = 0;
  maxRunning = 0;
  done = 0;
  starts: number[] = [];

  handler(holdMs: number): JobHandler {
    return async () => {
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      this.starts.push(Date.now());
      await sleep(holdMs);
      this.running--;
      this.done++;
      return { delivered: true };
    };
  }

  reset() {
    this.maxRunning = 0;
    this.done = 0;
    this.starts = [];
  }

  async waitForDone(n: number, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (this.done < n) {
      if (Date.now() > deadline) throw new Error(`${this.done} of ${n} jobs done after ${timeoutMs} ms`);
      await sleep(20);
    }
  }
}

describe('runtime throughput limits: global concurrency and rate limit', () => {
  const server = useTestRedis();
  let pool: WorkerPool | undefined;

  afterEach(async () => {
    await pool?.close(5_000);
    pool = undefined;
  });

  /** A worker process's pool for the one type, 5 jobs at once per process. */
  async function startPool(bullpen: Bullpen, handler: JobHandler): Promise<WorkerPool> {
    const p = poolOf(bullpen, { [TYPE]: handler }, { concurrency: 5 });
    await p.start();
    return p;
  }

  async function restart(bullpen: Bullpen, handler: JobHandler) {
    await pool?.close(5_000);
    pool = await startPool(bullpen, handler);
  }

  async function dispatch(bullpen: Bullpen, n: number) {
    for (let i = 0; i < n; i++) await bullpen.dispatcher.dispatch(TYPE, data);
  }

  it('a global concurrency of 1 holds a running 5-slot worker to one job at once, survives its restart, and lifts when removed', async () => {
    const bullpen = await server.readyBullpen();
    const limits = new QueueThroughput(bullpen);
    const rec = new Recorder();
    const slow = rec.handler(250);
    pool = await startPool(bullpen, slow);

    // Unlimited, the worker runs several at once.
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    expect(rec.maxRunning).toBeGreaterThan(1);

    // Set on the running worker: one at a time.
    expect(await limits.setConcurrency(TYPE, 1)).toEqual({ before: null, after: 1 });
    rec.reset();
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    expect(rec.maxRunning).toBe(1);

    // A restarted worker reads it again from the queue's meta hash.
    await restart(bullpen, slow);
    rec.reset();
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    expect(rec.maxRunning).toBe(1);
    expect((await readQueuePage(bullpen, TYPE, parseQueueFilters({}))).queue.throughput).toMatchObject({
      globalConcurrency: 1,
      processConcurrency: 20,
    });

    // Removed: parallel again, without restarting.
    expect(await limits.removeConcurrency(TYPE)).toEqual({ before: 1, after: null });
    rec.reset();
    await dispatch(bullpen, 8);
    await rec.waitForDone(8);
    expect(rec.maxRunning).toBeGreaterThan(1);
    expect((await readQueuePage(bullpen, TYPE, parseQueueFilters({}))).queue.throughput?.globalConcurrency).toBeNull();
  });

  it('a global rate limit of 2 per second spaces the starts of a running worker, survives its restart, and lifts when removed', async () => {
    const bullpen = await server.readyBullpen();
    const limits = new QueueThroughput(bullpen);
    const rec = new Recorder();
    const quick = rec.handler(5);
    pool = await startPool(bullpen, quick);
    /**
     * Starts within 800 ms of the first: the window is Redis's key expiry, counted from a moment
     * a few ms before the handler records its start, so the next window's starts can look 995 ms later.
     */
    const inFirstWindow = () => rec.starts.filter((t) => t - rec.starts[0] < 800).length;
    const span = () => Math.max(...rec.starts) - Math.min(...rec.starts);

    expect(await limits.setRateLimit(TYPE, 2, 1_000)).toEqual({ before: null, after: { max: 2, durationMs: 1_000 } });
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    // 6 jobs at 2 per second take three windows: at least two seconds between the first and last start.
    expect(inFirstWindow()).toBeLessThanOrEqual(2);
    expect(span()).toBeGreaterThanOrEqual(1_500);

    await restart(bullpen, quick);
    rec.reset();
    await sleep(1_100); // the previous window has run out
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    expect(inFirstWindow()).toBeLessThanOrEqual(2);
    expect(span()).toBeGreaterThanOrEqual(1_500);
    expect((await readQueuePage(bullpen, TYPE, parseQueueFilters({}))).queue.throughput).toMatchObject({
      globalRateLimit: { max: 2, durationMs: 1_000 },
      typeRateLimit: null,
      effectiveRateLimit: { max: 2, durationMs: 1_000 },
    });

    expect(await limits.removeRateLimit(TYPE)).toEqual({ before: { max: 2, durationMs: 1_000 }, after: null });
    rec.reset();
    await sleep(1_100);
    await dispatch(bullpen, 6);
    await rec.waitForDone(6);
    expect(inFirstWindow()).toBeGreaterThan(2);
  });

  it('refuses bad input with the rule, and changes nothing in the queue’s meta hash', async () => {
    const bullpen = await server.readyBullpen();
    const limits = new QueueThroughput(bullpen);
    const queue = bullpen.queues.get(TYPE);
    await limits.setConcurrency(TYPE, 3);
    await limits.setRateLimit(TYPE, 10, 60_000);
    const before = await bullpen.redis.hgetall(queue.toKey('meta'));

    for (const bad of [0, -1, 1.5, 10_001, 'abc', '', null, true, [2], { n: 1 }]) {
      await expect(limits.setConcurrency(TYPE, bad), `concurrency ${JSON.stringify(bad)}`).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    await expect(limits.setConcurrency(TYPE, 0)).rejects.toThrow(/At least 1 job at once/);
    await expect(limits.setConcurrency(TYPE, 10_001)).rejects.toThrow(/At most 10,000/);
    for (const [max, durationMs] of [
      [0, 1_000],
      [5, 99],
      [5, 86_400_001],
      [1_000_001, 1_000],
      [2.5, 1_000],
      ['x', 1_000],
      [5, undefined],
    ]) {
      await expect(limits.setRateLimit(TYPE, max, durationMs), `rate ${max}/${durationMs}`).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    await expect(limits.setRateLimit(TYPE, 5, 99)).rejects.toMatchObject({
      details: { fieldErrors: { durationMs: ['The window is at least 100 ms'] } },
    });
    await expect(limits.setConcurrency('no-such-queue', 2)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await bullpen.redis.hgetall(queue.toKey('meta'))).toEqual(before);

    // A form's strings are numbers too.
    expect(await limits.setConcurrency(TYPE, '4')).toEqual({ before: 3, after: 4 });
  });

  it('on a type with its own rate limit, a global limit keeps the job table’s window, and another window is refused', async () => {
    const bullpen = await server.readyBullpen();
    const limits = new QueueThroughput(bullpen);
    const queue = bullpen.queues.get('sync');
    const page = () => readQueuePage(bullpen, 'sync', parseQueueFilters({}));
    expect((await page()).queue.throughput).toEqual({
      globalConcurrency: null,
      globalRateLimit: null,
      processConcurrency: 2,
      typeRateLimit: { max: 50, durationMs: 60_000 },
      effectiveRateLimit: { max: 50, durationMs: 60_000 },
    });

    await expect(limits.setRateLimit('sync', 5, 1_000)).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { durationMs: [expect.stringContaining('1 min')] } },
    });
    expect(await queue.getGlobalRateLimit()).toBeNull();

    await limits.setRateLimit('sync', 10, 60_000);
    expect((await page()).queue.throughput?.effectiveRateLimit).toEqual({ max: 10, durationMs: 60_000 });
  });
});
