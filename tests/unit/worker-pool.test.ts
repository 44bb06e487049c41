import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { CancelledError } from '@/lib/errors/cancelled-error';
import { BACKOFF_CAP_MS, FULL_JITTER } from '@/lib/jobs/backoff';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import { defineJob } from '@/lib/jobs/job-definition';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '@/lib/jobs/payload-limit';
import { MINUTE_POINTS } from '@/lib/metrics/history-layout';
import type { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import { Keyspace } from '@/lib/redis/keys';
import type { AttemptLog } from '@/lib/runtime/attempt-log';
import type { JobRun } from '@/lib/runtime/job-run';
import type { ProcessorDeps } from '@/lib/runtime/processor';
import { RunningAttempts } from '@/lib/runtime/running-attempts';
import { backoffStrategy, WorkerPool, type WorkerPoolOptions } from '@/lib/runtime/worker-pool';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { capturingLogger } from '../helpers/capturing-logger';

/**
 * The pool over BullMQ workers and processors held in memory: BoundedWorker records its
 * options and listeners and closes when the test says so, buildProcessor records what it
 * was handed. What the pool itself decides (each worker's options, which events it
 * follows, the dead letter of a stalled job, cancel, the grace period of a close) is
 * asked without Redis; runtime-retries.test.ts and final-failure-record.test.ts are the
 * tests of it over real BullMQ.
 */
const fake = vi.hoisted(() => {
  type Listener = (...args: unknown[]) => unknown;
  class FakeWorker {
    readonly listeners = new Map<string, Listener[]>();
    readonly calls: string[] = [];
    readonly qualifiedName: string;
    /** What close() returns; a test replaces it to hold a close open. */
    closing: Promise<void> = Promise.resolve();
    constructor(
      readonly name: string,
      readonly processor: unknown,
      readonly opts: Record<string, unknown>,
      readonly maxPayloadBytes: number,
    ) {
      this.qualifiedName = `${String(opts.prefix)}:${name}`;
      workers.push(this);
      log.push(`new ${name}`);
    }
    on(event: string, fn: Listener) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
      return this;
    }
    emit(event: string, ...args: unknown[]) {
      for (const fn of this.listeners.get(event) ?? []) fn(...args);
    }
    run() {
      log.push(`run ${this.name}`);
      return new Promise(() => undefined);
    }
    async waitUntilReady() {
      await Promise.resolve();
      log.push(`ready ${this.name}`);
    }
    close() {
      log.push(`close ${this.name}`);
      return this.closing;
    }
  }
  const workers: FakeWorker[] = [];
  const processors: unknown[] = [];
  const log: string[] = [];
  return { FakeWorker, workers, processors, log };
});

vi.mock('@/lib/runtime/bounded-worker', () => ({ BoundedWorker: fake.FakeWorker }));
vi.mock('@/lib/runtime/processor', () => ({
  buildProcessor: (deps: unknown) => {
    fake.processors.push(deps);
    return async () => undefined;
  },
}));

type FakeWorker = InstanceType<typeof fake.FakeWorker>;

const minimal = {
  group: 'g',
  description: 'd',
  schema: z.object({}),
  example: {},
  attempts: 3,
  backoff: { type: 'fixed', delayMs: 1 },
  timeoutMs: 1_000,
} as const;
const jobs = new JobCatalog([
  defineJob({ name: 'send', ...minimal, concurrency: 4, rateLimit: { max: 10, durationMs: 2_000 } }),
  defineJob({ name: 'sync', ...minimal }),
]);
const keys = new Keyspace('t');
const handlers = { send: async () => 'sent', sync: async () => 'synced' };

function poolWith(over: Partial<WorkerPoolOptions> = {}) {
  const records: DeadLetterInput[] = [];
  const sink: DeadLetterSink = {
    record: vi.fn(async (input: DeadLetterInput) => {
      records.push(input);
      return { id: 'dl-1', created: true };
    }),
  };
  const { logger, lines } = capturingLogger();
  const opts: WorkerPoolOptions = {
    connection: { tag: 'worker-connection' } as never,
    keys,
    jobs,
    handlers,
    sink,
    alerter: { tag: 'alerter' } as never,
    logger,
    ...over,
  };
  return { pool: new WorkerPool(opts), opts, sink, records, lines };
}

const workerOf = (type: string): FakeWorker => {
  const w = fake.workers.find((x) => x.name === type);
  if (!w) throw new Error(`no worker for ${type}`);
  return w;
};
const processorOf = (type: string) => fake.processors.find((p) => (p as ProcessorDeps).type === type) as ProcessorDeps;
const settle = () => new Promise((resolve) => setImmediate(resolve));
const envelope = { payload: {}, requestId: 'r-1', dispatchedAt: 1, tenant: { orgId: 'acme' } };
const aJob = (over: Record<string, unknown> = {}) =>
  ({ id: '9', name: 'send', data: envelope, attemptsMade: 2, ...over }) as unknown as Job;

afterEach(() => {
  fake.workers.length = 0;
  fake.processors.length = 0;
  fake.log.length = 0;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('WorkerPool.start (lib/runtime/worker-pool.ts)', () => {
  it('builds one worker per handled type with the type’s options, then runs them all and waits until ready', async () => {
    const { pool, opts, lines } = poolWith();
    await pool.start();
    expect(fake.log).toEqual(['new send', 'new sync', 'run send', 'run sync', 'ready send', 'ready sync']);
    const send = workerOf('send');
    expect(send.opts).toEqual({
      connection: opts.connection,
      prefix: 't:{send}',
      name: `bullpen:${hostname()}:${process.pid}`,
      autorun: false,
      concurrency: 4,
      limiter: { max: 10, duration: 2_000 },
      stalledInterval: 30_000,
      lockDuration: 30_000,
      maxStalledCount: 1,
      settings: { backoffStrategy },
      metrics: { maxDataPoints: MINUTE_POINTS },
    });
    expect(send.maxPayloadBytes).toBe(DEFAULT_MAX_PAYLOAD_BYTES);
    expect(workerOf('sync').opts).toMatchObject({ prefix: 't:{sync}', concurrency: 1, limiter: undefined });
    expect(pool.types).toEqual(['send', 'sync']);
    expect(pool.describe()).toEqual([
      { type: 'send', concurrency: 4 },
      { type: 'sync', concurrency: 1 },
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', types: ['send', 'sync'], worker: pool.name, msg: 'workers started' }),
    );
  });

  it('hands each processor its type, definition, handler and the pool’s collaborators', async () => {
    const metrics = { tag: 'metrics' } as unknown as WorkerMetrics;
    const history = { record: vi.fn() };
    const hooks = { onComplete: vi.fn() };
    const { pool, opts } = poolWith({ metrics, history, hooks, timeoutMs: 123 });
    await pool.start();
    const deps = processorOf('sync');
    expect(deps).toMatchObject({
      type: 'sync',
      definition: jobs.get('sync'),
      handler: handlers.sync,
      sink: opts.sink,
      alerter: opts.alerter,
      logger: opts.logger,
      metrics,
      history,
      hooks,
      timeoutMs: 123,
    });
    expect(deps.running).toBeInstanceOf(RunningAttempts);
    expect(deps.running).not.toBe(processorOf('send').running);
    expect(typeof deps.deadLetters.prepare).toBe('function');
    expect(deps.deadLetters).toBe(processorOf('send').deadLetters);
  });

  it('takes every override: types, name, concurrency, stall and lock times, payload limit, telemetry', async () => {
    const telemetry = { tracer: {}, contextManager: {} } as never;
    const { pool } = poolWith({
      types: ['sync'],
      name: 'w-1',
      concurrency: 50,
      stalledIntervalMs: 1_500,
      lockDurationMs: 2_500,
      maxPayloadBytes: 4_096,
      telemetry,
    });
    await pool.start();
    expect(fake.workers.map((w) => w.name)).toEqual(['sync']);
    expect(pool.name).toBe('w-1');
    expect(workerOf('sync').opts).toMatchObject({ name: 'w-1', concurrency: 50, stalledInterval: 1_500, lockDuration: 2_500, telemetry });
    expect(workerOf('sync').maxPayloadBytes).toBe(4_096);
    expect(pool.describe()).toEqual([{ type: 'sync', concurrency: 50 }]);
  });

  it('sets no telemetry option without telemetry', async () => {
    const { pool } = poolWith();
    await pool.start();
    expect(Object.keys(workerOf('send').opts)).not.toContain('telemetry');
  });

  it('refuses a type with no handler, naming it', async () => {
    const { pool } = poolWith({ types: ['sync', 'resize'] });
    await expect(pool.start()).rejects.toThrow('No handler for job type "resize" in this worker');
  });

  it('wraps the hooks and the backoff strategy in the attempt record’s when it is on', async () => {
    const hooks = { onComplete: vi.fn() };
    const wrappedHooks = { onFailed: vi.fn() };
    const wrappedStrategy = () => 5;
    const attempts = {
      hooks: vi.fn(() => wrappedHooks),
      backoffStrategy: vi.fn(() => wrappedStrategy),
      failed: vi.fn(),
      completed: vi.fn(),
      stalled: vi.fn(),
    };
    const { pool } = poolWith({ hooks, attempts: attempts as unknown as AttemptLog });
    await pool.start();
    expect(attempts.hooks).toHaveBeenCalledWith(hooks);
    expect(attempts.backoffStrategy).toHaveBeenCalledWith(backoffStrategy);
    expect(processorOf('send').hooks).toBe(wrappedHooks);
    expect(workerOf('send').opts.settings).toEqual({ backoffStrategy: wrappedStrategy });

    const job = aJob();
    const err = new Error('boom');
    workerOf('send').emit('completed', job);
    workerOf('sync').emit('stalled', '12');
    workerOf('send').emit('failed', job, err);
    expect(attempts.completed).toHaveBeenCalledWith('send', job);
    expect(attempts.stalled).toHaveBeenCalledWith('t:{sync}:sync', '12');
    expect(attempts.failed).toHaveBeenCalledWith('send', job, err);
  });

  it('follows neither completed nor stalled without the attempt record', async () => {
    const { pool } = poolWith();
    await pool.start();
    expect([...workerOf('send').listeners.keys()].sort()).toEqual(['error', 'failed']);
  });

  it('logs a worker’s Redis error with its queue', async () => {
    const { pool, lines } = poolWith();
    await pool.start();
    const err = new Error('ECONNRESET');
    workerOf('sync').emit('error', err);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        queue: 'sync',
        connection: 'redis',
        msg: 'worker error',
        err: expect.objectContaining({ message: 'ECONNRESET' }),
      }),
    );
  });

  it('lists the attempts running now, every type’s', async () => {
    const { pool } = poolWith();
    await pool.start();
    const a = { jobId: '1' } as unknown as JobRun;
    const b = { jobId: '2' } as unknown as JobRun;
    processorOf('send').running!.add(a);
    processorOf('sync').running!.add(b);
    expect([...pool.runningJobs()]).toEqual([a, b]);
  });
});

describe('WorkerPool: the failed event', () => {
  it('writes the dead letter the processor prepared, once BullMQ recorded the final failure', async () => {
    const { pool, sink } = poolWith();
    await pool.start();
    const job = aJob({ finishedOn: 1_000 });
    const write = vi.fn(async () => undefined);
    processorOf('send').deadLetters.prepare(job, write);
    workerOf('send').emit('failed', job, new Error('boom'));
    await settle();
    expect(write).toHaveBeenCalledTimes(1);
    expect(sink.record).not.toHaveBeenCalled();
    // Taken once: a second event for the same job writes nothing more.
    workerOf('send').emit('failed', job, new Error('boom'));
    await settle();
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('writes nothing for a failure BullMQ retries (no finishedOn), and drops what was prepared', async () => {
    const { pool, sink } = poolWith();
    await pool.start();
    const job = aJob();
    const write = vi.fn(async () => undefined);
    processorOf('send').deadLetters.prepare(job, write);
    workerOf('send').emit('failed', job, new Error('job stalled more than allowable limit'));
    await settle();
    (job as { finishedOn?: number }).finishedOn = 2_000;
    workerOf('send').emit('failed', job, new Error('boom'));
    await settle();
    expect(write).not.toHaveBeenCalled();
    expect(sink.record).not.toHaveBeenCalled();
  });

  it('records the dead letter of a job the stalled check failed for good, and counts it', async () => {
    const forType = vi.fn(() => counters);
    const counters = { failed: 0 };
    const history = { record: vi.fn() };
    const { pool, records } = poolWith({ metrics: { forType } as unknown as WorkerMetrics, history });
    await pool.start();
    const err = new Error('job stalled more than allowable limit');
    workerOf('sync').emit('failed', aJob({ id: '9', finishedOn: 5_000, attemptsMade: 1 }), err);
    await settle();
    expect(records).toEqual([
      {
        queue: 'sync',
        jobId: '9',
        jobType: 'sync',
        jobData: envelope,
        error: { message: err.message, stack: err.stack, errorClass: 'unknown' },
        attempts: 1,
        failedAt: 5_000,
        source: 'stalled',
        tenant: { orgId: 'acme' },
      },
    ]);
    expect(forType).toHaveBeenCalledWith('sync');
    expect(counters.failed).toBe(1);
    expect(history.record).toHaveBeenCalledWith('sync', 'failed', undefined, undefined);
  });

  it('reads "stalled" in any case, and records no other unprepared failure', async () => {
    const { pool, records } = poolWith();
    await pool.start();
    workerOf('send').emit('failed', aJob({ id: '1', finishedOn: 1 }), new Error('Job Stalled more than allowable limit'));
    workerOf('send').emit('failed', aJob({ id: '2', finishedOn: 1 }), new Error('boom'));
    workerOf('send').emit('failed', aJob({ id: '3', finishedOn: 1 }), undefined);
    workerOf('send').emit('failed', undefined, new Error('job stalled more than allowable limit'));
    await expect(pool.close(1_000)).resolves.toEqual({ timedOut: false, abandoned: [] });
    expect(records.map((r) => r.jobId)).toEqual(['1']);
  });

  it('logs a stalled job’s dead letter that could not be written, and counts nothing', async () => {
    const counters = { failed: 0 };
    const history = { record: vi.fn() };
    const sink: DeadLetterSink = { record: vi.fn(async () => Promise.reject(new Error('redis gone'))) };
    const { pool, lines } = poolWith({ sink, metrics: { forType: () => counters } as unknown as WorkerMetrics, history });
    await pool.start();
    workerOf('send').emit('failed', aJob({ id: '4', finishedOn: 1 }), new Error('job stalled more than allowable limit'));
    await expect(pool.close(1_000)).resolves.toEqual({ timedOut: false, abandoned: [] });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        jobId: '4',
        queue: 'send',
        msg: 'could not record a stalled job’s dead letter',
        err: expect.objectContaining({ message: 'redis gone' }),
      }),
    );
    expect(counters.failed).toBe(0);
    expect(history.record).not.toHaveBeenCalled();
  });
});

describe('WorkerPool.cancel', () => {
  it('aborts the attempt this process runs with the operator’s CancelledError, and only that one', async () => {
    const { pool } = poolWith();
    await pool.start();
    const abortWith = vi.fn();
    processorOf('send').running!.add({ jobId: '7', abortWith } as unknown as JobRun);
    expect(pool.cancel({ queue: 'send', jobId: '8', by: 'alice' })).toBe(false);
    expect(pool.cancel({ queue: 'sync', jobId: '7', by: 'alice' })).toBe(false);
    expect(pool.cancel({ queue: 'nope', jobId: '7', by: 'alice' })).toBe(false);
    expect(abortWith).not.toHaveBeenCalled();
    expect(pool.cancel({ queue: 'send', jobId: '7', by: 'alice' })).toBe(true);
    expect(abortWith).toHaveBeenCalledTimes(1);
    const reason = abortWith.mock.calls[0]![0];
    expect(reason).toBeInstanceOf(CancelledError);
    expect(reason.by).toBe('alice');
  });
});

describe('WorkerPool.close', () => {
  it('closes every worker and returns clean when they finish within the grace period, leaving no timer', async () => {
    const { pool, lines } = poolWith();
    await pool.start();
    vi.useFakeTimers();
    await expect(pool.close(60_000)).resolves.toEqual({ timedOut: false, abandoned: [] });
    expect(fake.log.filter((l) => l.startsWith('close'))).toEqual(['close send', 'close sync']);
    expect(vi.getTimerCount()).toBe(0);
    expect(pool.types).toEqual([]);
    expect(lines.filter((l) => l.level !== 'info')).toEqual([]);
  });

  it('waits for the dead letters under way before it returns', async () => {
    const { pool } = poolWith();
    await pool.start();
    const job = aJob({ finishedOn: 1 });
    let finish!: () => void;
    const written = vi.fn();
    processorOf('send').deadLetters.prepare(job, () => new Promise<void>((resolve) => (finish = resolve)).then(written));
    workerOf('send').emit('failed', job, new Error('boom'));
    let closed = false;
    const closing = pool.close(5_000).then((r) => {
      closed = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(closed).toBe(false);
    finish();
    await expect(closing).resolves.toEqual({ timedOut: false, abandoned: [] });
    expect(written).toHaveBeenCalledTimes(1);
  });

  it('forgets each dead-letter write once it is done, so a long-lived pool holds none of them', async () => {
    const { pool } = poolWith();
    await pool.start();
    for (const id of ['1', '2', '3']) {
      const job = aJob({ id, finishedOn: 1 });
      processorOf('send').deadLetters.prepare(job, async () => undefined);
      workerOf('send').emit('failed', job, new Error('boom'));
    }
    // Private: what a close would wait for. Nothing a caller sees shows it, only the memory it holds.
    const writing = Reflect.get(pool, 'writing') as Set<Promise<void>>;
    expect(writing.size).toBe(3);
    await settle();
    expect(writing.size).toBe(0);
  });

  it('gives up on a dead letter still being written when the grace period is over', async () => {
    const { pool } = poolWith();
    await pool.start();
    const job = aJob({ finishedOn: 1 });
    processorOf('send').deadLetters.prepare(job, () => new Promise<void>(() => undefined));
    workerOf('send').emit('failed', job, new Error('boom'));
    const started = performance.now();
    await expect(pool.close(50)).resolves.toEqual({ timedOut: true, abandoned: [] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('returns after the grace period with the jobs still running, logged as abandoned', async () => {
    const { pool, lines } = poolWith();
    await pool.start();
    let failClose!: (err: Error) => void;
    workerOf('sync').closing = new Promise<void>((_, reject) => (failClose = reject));
    processorOf('sync').running!.add({ jobId: '31' } as JobRun);
    processorOf('send').running!.add({ jobId: '30' } as JobRun);
    const started = performance.now();
    const result = await pool.close(50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(result).toEqual({
      timedOut: true,
      abandoned: [
        { id: '30', type: 'send' },
        { id: '31', type: 'sync' },
      ],
    });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        graceMs: 50,
        abandoned: result.abandoned,
        msg: 'grace period over; abandoning 2 running job(s) to the stalled check',
      }),
    );
    expect(pool.types).toEqual([]);
    // The close left running fails later: logged, not an unhandled rejection.
    failClose(new Error('connection lost'));
    await settle();
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'worker close failed', err: expect.objectContaining({ message: 'connection lost' }) }),
    );
  });
});

describe('backoffStrategy: what BullMQ calls for our backoff type', () => {
  it('draws below the job’s base delay doubled per attempt, from 1 s by default, capped at one hour', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const job = (delay?: number) => ({ opts: { backoff: { type: FULL_JITTER, delay } } });
    expect(backoffStrategy(3, FULL_JITTER, undefined, job(100))).toBe(399);
    expect(backoffStrategy(3, FULL_JITTER, undefined, job())).toBe(3_999);
    expect(backoffStrategy(3, FULL_JITTER, undefined, { opts: {} })).toBe(3_999);
    expect(backoffStrategy(3, FULL_JITTER)).toBe(3_999);
    // BullMQ counts from 0 before the first attempt is recorded; that is the first attempt's window.
    expect(backoffStrategy(0, FULL_JITTER, undefined, job(100))).toBe(99);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(backoffStrategy(40, FULL_JITTER, undefined, job(100))).toBe(BACKOFF_CAP_MS / 2);
  });

  it('refuses a backoff type it does not know, naming it', () => {
    expect(() => backoffStrategy(1, 'exponential')).toThrow('Unknown backoff type "exponential"');
    expect(() => backoffStrategy(1)).toThrow('Unknown backoff type "undefined"');
  });
});
