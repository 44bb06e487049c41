import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Alert, Alerter } from '@/lib/alerts/alerter';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { createLogger } from '@/lib/logging/logger';
import { JobStats } from '@/lib/metrics/job-stats';
import type { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import { buildProcessor, type ProcessorDeps } from '@/lib/runtime/processor';
import type { RuntimeHooks } from '@/lib/runtime/runtime-hooks';
import { capturingLogger } from '../helpers/capturing-logger';
import { TEST_CATALOG } from '../helpers/test-jobs';

/**
 * The processor the worker pool hands BullMQ, called the way BullMQ calls it: one job in,
 * a result or a thrown error out. What it must do on each path (docs/architecture.md):
 * the handler's result, the metrics, the hooks, the job's log, the dead letter before
 * the final failure and the error BullMQ needs to stop retrying.
 */
const TYPE = 'sync';
const tenant = { orgId: 'acme' };
const envelope = (payload: unknown = { channelId: 'C1' }) => ({ payload, tenant, requestId: 'req-1', dispatchedAt: 1 });

function fakeJob(
  over: {
    name?: string;
    data?: unknown;
    attemptsMade?: number;
    attempts?: number;
    failLog?: boolean;
    timestamp?: number;
    delay?: number;
    processedOn?: number;
    stacktrace?: string[];
  } = {},
) {
  const logs: string[] = [];
  const job = {
    id: 'job-1',
    name: over.name ?? TYPE,
    data: over.data ?? envelope(),
    attemptsMade: over.attemptsMade ?? 0,
    opts: { attempts: over.attempts ?? 3, ...(over.delay !== undefined ? { delay: over.delay } : {}) },
    timestamp: over.timestamp ?? 1,
    processedOn: over.processedOn,
    stacktrace: over.stacktrace ?? [],
    log: async (line: string) => {
      if (over.failLog) throw new Error('log write failed');
      logs.push(line);
      return logs.length;
    },
    updateProgress: async () => undefined,
  };
  return { job: job as unknown as Job, logs };
}

/** Everything the processor touches, recorded. */
function harness(
  opts: {
    handler?: ProcessorDeps['handler'];
    critical?: boolean;
    sink?: DeadLetterSink['record'];
    timeoutMs?: number;
    history?: ProcessorDeps['history'];
  } = {},
) {
  const records: DeadLetterInput[] = [];
  const alerts: Alert[] = [];
  const events: Array<[string, any]> = [];
  const stats = new JobStats();
  const { logger, lines } = capturingLogger();
  const hooks: RuntimeHooks = {
    onStart: (c) => events.push(['start', c]),
    onComplete: (c) => events.push(['complete', c]),
    onFailed: (c) => events.push(['failed', c]),
  };
  const definition = { ...TEST_CATALOG.get(TYPE), critical: opts.critical ?? false };
  const prepared: Array<() => Promise<void>> = [];
  const processor = buildProcessor({
    type: TYPE,
    definition,
    handler: opts.handler ?? (async (ctx) => ({ got: ctx.data })),
    sink: {
      record:
        opts.sink ??
        (async (input) => {
          records.push(input);
          return { id: 'dlq-1', created: true };
        }),
    },
    alerter: { raise: (a: Alert) => alerts.push(a) } as unknown as Alerter,
    deadLetters: { prepare: (_job, write) => prepared.push(write) },
    logger,
    metrics: { forType: (t: string) => (t === TYPE ? stats : new JobStats()) } as unknown as WorkerMetrics,
    hooks,
    timeoutMs: opts.timeoutMs,
    history: opts.history,
  });
  // BullMQ's part: it moves a job that failed for good to the failed set (at finishedOn),
  // then its failed event writes the dead letter the processor prepared.
  const process = async (job: Job) => {
    try {
      return await processor(job);
    } finally {
      const writes = prepared.splice(0);
      if (writes.length) Object.assign(job, { finishedOn: Date.now() });
      for (const write of writes) await write();
    }
  };
  return { process, records, alerts, lines, events, stats };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected the job to fail');
    },
    (e: Error) => e,
  );
}

const netError = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

describe('processor: a job that completes', () => {
  it('gives the handler the parsed payload and the job, and returns its result', async () => {
    const seen: any[] = [];
    const h = harness({
      handler: async (ctx) => {
        seen.push({ data: ctx.data, jobId: ctx.jobId, attempt: ctx.attempt, maxAttempts: ctx.maxAttempts, tenant: ctx.tenant });
        return 'done';
      },
    });
    const { job } = fakeJob({ attemptsMade: 1 });
    expect(await h.process(job)).toBe('done');
    // The schema's defaults are filled in before the handler sees the payload.
    expect(seen).toEqual([{ data: { channelId: 'C1', limit: 200 }, jobId: 'job-1', attempt: 2, maxAttempts: 3, tenant }]);
  });

  it('counts it completed and its duration, leaves nothing active, and tells the hooks', async () => {
    const h = harness();
    await h.process(fakeJob().job);
    expect(h.stats).toMatchObject({ active: 0, completed: 1, failed: 0, retried: 0, durationCount: 1 });
    expect(h.events.map(([e]) => e)).toEqual(['start', 'complete']);
    expect(h.events[0][1]).toEqual({ jobId: 'job-1', type: TYPE, attempt: 1, tenant });
    expect(h.events[1][1]).toMatchObject({
      jobId: 'job-1',
      type: TYPE,
      attempt: 1,
      tenant,
      result: { got: { channelId: 'C1', limit: 200 } },
    });
    expect(h.events[1][1].durationMs).toBeGreaterThanOrEqual(0);
    expect(h.records).toEqual([]);
  });

  it('is active while the handler runs', async () => {
    let during = -1;
    const h = harness({
      handler: async () => {
        during = h.stats.active;
      },
    });
    await h.process(fakeJob().job);
    expect(during).toBe(1);
    expect(h.stats.active).toBe(0);
  });

  it('logs the completion at debug, with its latency', async () => {
    const h = harness();
    await h.process(fakeJob().job);
    const done = h.lines.find((l) => l.msg === 'job completed');
    expect(done).toMatchObject({ level: 'debug', jobId: 'job-1', queue: TYPE });
    expect(Number.isInteger(done?.latencyMs)).toBe(true);
  });
});

describe('processor: durations', () => {
  const slow = (outcome: 'ok' | 'fail') => async () => {
    await new Promise((r) => setTimeout(r, 5));
    if (outcome === 'fail') throw netError();
    return 'ok';
  };

  it('the metrics get the attempt’s duration in seconds, the hooks in milliseconds, on both paths', async () => {
    for (const outcome of ['ok', 'fail'] as const) {
      const h = harness({ handler: slow(outcome) });
      await h.process(fakeJob().job).catch(() => undefined);
      const ms = h.events[1][1].durationMs as number;
      expect(ms, outcome).toBeGreaterThanOrEqual(4);
      expect(ms, outcome).toBeLessThan(30_000);
      expect(h.stats.durationSum, outcome).toBe(ms / 1000);
    }
  });
});

describe('processor: a failed attempt with attempts left', () => {
  it('rethrows the handler’s own error for BullMQ to retry, and writes no dead letter', async () => {
    const err = netError();
    const h = harness({ handler: async () => Promise.reject(err) });
    const { job, logs } = fakeJob({ attemptsMade: 0, attempts: 3 });
    expect(await rejection(h.process(job))).toBe(err);
    expect(h.records).toEqual([]);
    expect(h.stats).toMatchObject({ active: 0, retried: 1, failed: 0, completed: 0, durationCount: 1 });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z attempt 1\/3 failed \(network\): socket hang up; will retry$/);
    const line = h.lines.find((l) => l.msg === 'job attempt failed, will retry');
    expect(line).toMatchObject({ level: 'warn', retryable: true, errorClass: 'network', err: { message: 'socket hang up' } });
    expect(Number.isInteger(line?.latencyMs)).toBe(true);
    const [, failed] = h.events[1];
    expect(failed).toMatchObject({ jobId: 'job-1', type: TYPE, attempt: 1, tenant, error: err, final: false });
    expect(failed.classification).toEqual({ errorClass: 'network', retryable: true, code: 'ECONNRESET' });
  });

  it('a thrown value that is not an Error becomes one with its text', async () => {
    const h = harness({ handler: async () => Promise.reject('plain string') });
    const e = await rejection(h.process(fakeJob().job));
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('plain string');
  });

  it('a job log that cannot be written does not change the outcome', async () => {
    const err = netError();
    const h = harness({ handler: async () => Promise.reject(err) });
    expect(await rejection(h.process(fakeJob({ failLog: true }).job))).toBe(err);
  });

  it('cuts the error message in the job log at 500 characters', async () => {
    const h = harness({ handler: async () => Promise.reject(Object.assign(new Error('x'.repeat(600)), { code: 'ECONNRESET' })) });
    const { job, logs } = fakeJob();
    await rejection(h.process(job));
    expect(logs[0]).toContain(`: ${'x'.repeat(500)}; will retry`);
    expect(logs[0]).not.toContain('x'.repeat(501));
  });

  it('an attempt past its time limit aborts the handler’s signal and retries as a timeout', async () => {
    let signal: AbortSignal | undefined;
    const h = harness({
      timeoutMs: 20,
      handler: (ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    const e = await rejection(h.process(fakeJob().job));
    expect(e).toBeInstanceOf(TimeoutError);
    expect(signal?.aborted).toBe(true);
    expect(h.stats.retried).toBe(1);
  });
});

describe('processor: the final failure', () => {
  it('writes the dead letter with the error, its class and code, then rethrows for BullMQ', async () => {
    const err = netError();
    const h = harness({ handler: async () => Promise.reject(err) });
    const { job, logs } = fakeJob({ attemptsMade: 2, attempts: 3 });
    const before = Date.now();
    const thrown = await rejection(h.process(job));
    // Retryable but out of attempts: BullMQ fails it on its own, the error is passed as is.
    expect(thrown).toBe(err);
    expect(h.records).toHaveLength(1);
    const [r] = h.records;
    expect(r).toMatchObject({
      queue: TYPE,
      jobId: 'job-1',
      jobType: TYPE,
      attempts: 3,
      source: 'runtime',
      tenant,
      error: { message: 'socket hang up', code: 'ECONNRESET', errorClass: 'network', stack: err.stack },
    });
    expect(r.jobData).toEqual(envelope());
    expect(r.failedAt).toBeGreaterThanOrEqual(before);
    expect(r.failedAt).toBeLessThanOrEqual(Date.now());
    expect(h.stats).toMatchObject({ failed: 1, retried: 0, active: 0, durationCount: 1 });
    expect(logs[0]).toMatch(/ attempt 3\/3 failed \(network\): socket hang up$/);
    expect(h.lines.find((l) => l.msg === 'job failed for good')).toMatchObject({ level: 'error', retryable: true, errorClass: 'network' });
    expect(h.lines.find((l) => l.msg === 'dead letter recorded')).toMatchObject({ level: 'warn', dlqId: 'dlq-1' });
    expect(h.events[1][1].final).toBe(true);
  });

  it('writes nothing until BullMQ has recorded the failure: it prepares the dead letter for the failed event', async () => {
    const records: DeadLetterInput[] = [];
    const prepared: Array<() => Promise<void>> = [];
    const process = buildProcessor({
      type: TYPE,
      definition: TEST_CATALOG.get(TYPE),
      handler: async () => Promise.reject(new PermanentError('bad')),
      sink: { record: async (input) => (records.push(input), { id: 'dlq-1', created: true }) },
      alerter: { raise: () => undefined } as unknown as Alerter,
      deadLetters: { prepare: (_job, write) => prepared.push(write) },
      logger: createLogger('test', 'silent'),
    });
    const { job } = fakeJob();
    await rejection(process(job));
    expect(records).toHaveLength(0);
    expect(prepared).toHaveLength(1);
    Object.assign(job, { finishedOn: 1_234 });
    await prepared[0]();
    expect(records).toMatchObject([{ jobId: 'job-1', failedAt: 1_234, error: { message: 'bad' } }]);
  });

  it('a job with one attempt fails for good at once', async () => {
    const h = harness({ handler: async () => Promise.reject(netError()) });
    await rejection(h.process(fakeJob({ attempts: 1 }).job));
    expect(h.records).toHaveLength(1);
    expect(h.stats.failed).toBe(1);
  });

  it('a permanent error fails for good on its first attempt, as an UnrecoverableError keeping message and stack', async () => {
    const err = new PermanentError('webhook gone', 'GONE');
    const h = harness({ handler: async () => Promise.reject(err) });
    const thrown = await rejection(h.process(fakeJob({ attemptsMade: 0, attempts: 5 }).job));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown.message).toBe('webhook gone');
    expect(thrown.stack).toBe(err.stack);
    expect(h.records).toHaveLength(1);
    expect(h.records[0]).toMatchObject({ attempts: 1, error: { errorClass: 'permanent', code: 'GONE' } });
    expect(h.stats).toMatchObject({ failed: 1, retried: 0 });
  });

  it('an HTTP answer without a code is recorded under HTTP_<status>', async () => {
    const h = harness({ handler: async () => Promise.reject(new HttpError(404, 'not found')) });
    await rejection(h.process(fakeJob().job));
    expect(h.records[0].error).toMatchObject({ code: 'HTTP_404', errorClass: 'client' });
  });

  it('an error with neither code nor status is recorded without a code', async () => {
    const h = harness({ handler: async () => Promise.reject(new Error('boom')) });
    await rejection(h.process(fakeJob({ attempts: 1 }).job));
    expect(h.records[0].error).toEqual(expect.objectContaining({ errorClass: 'unknown', code: undefined }));
  });

  it('a critical type raises an alert for a new dead letter only', async () => {
    const critical = harness({ critical: true, handler: async () => Promise.reject(new PermanentError('bad')) });
    await rejection(critical.process(fakeJob().job));
    expect(critical.alerts).toEqual([
      {
        reason: 'critical_dead_letter',
        type: TYPE,
        message: `Critical job type ${TYPE} dead-lettered: bad`,
        fields: { jobId: 'job-1', dlqId: 'dlq-1' },
      },
    ]);
    const again = harness({
      critical: true,
      handler: async () => Promise.reject(new PermanentError('bad')),
      sink: async () => ({ id: 'dlq-1', created: false }),
    });
    await rejection(again.process(fakeJob().job));
    expect(again.alerts).toEqual([]);
    expect(again.lines.find((l) => l.msg === 'dead letter already recorded')).toMatchObject({ dlqId: 'dlq-1' });
    const ordinary = harness({ handler: async () => Promise.reject(new PermanentError('bad')) });
    await rejection(ordinary.process(fakeJob().job));
    expect(ordinary.alerts).toEqual([]);
  });

  it('a dead letter that cannot be written is logged for the reconciler; the job still fails the same way', async () => {
    const h = harness({
      critical: true,
      handler: async () => Promise.reject(new PermanentError('bad')),
      sink: async () => Promise.reject(new Error('redis down')),
    });
    const thrown = await rejection(h.process(fakeJob().job));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(h.alerts).toEqual([]);
    expect(h.lines.find((l) => l.msg === 'could not write the dead letter; the reconciler will recover it')).toMatchObject({
      level: 'error',
      err: { message: 'redis down' },
    });
  });
});

describe('processor: jobs it refuses before the handler', () => {
  const never = async () => {
    throw new Error('the handler must not run');
  };

  it('a job named after another type: permanent, with the rule', async () => {
    const h = harness({ handler: never });
    const thrown = await rejection(h.process(fakeJob({ name: 'notify' }).job));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown.message).toBe(
      `Job name "notify" is not this queue's job type "${TYPE}": a Bullpen queue runs one type, and its jobs are named after it (docs/producers.md)`,
    );
    expect(h.records[0].error).toMatchObject({ errorClass: 'permanent', code: 'VALIDATION' });
  });

  it('a broken envelope: permanent, with the envelope’s error', async () => {
    const h = harness({ handler: never });
    const thrown = await rejection(h.process(fakeJob({ data: { payload: {}, requestId: '', dispatchedAt: 'x' } }).job));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown.message).toMatch(/^Invalid job envelope: /);
    expect(h.records[0].error).toMatchObject({ errorClass: 'permanent', code: 'VALIDATION' });
    expect(h.events[0][1].tenant).toBeUndefined();
  });

  it('a payload the schema refuses: permanent, the message names the type and the field', async () => {
    const h = harness({ handler: never });
    const thrown = await rejection(h.process(fakeJob({ data: envelope({ channelId: '' }) }).job));
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect(thrown.message).toMatch(/^Invalid sync payload: .*channelId/s);
    expect(h.records[0].error).toMatchObject({ errorClass: 'validation' });
    expect(h.stats).toMatchObject({ failed: 1, retried: 0, completed: 0 });
  });
});

describe('processor: optional parts', () => {
  const bare = (definition: ProcessorDeps['definition'], handler: ProcessorDeps['handler']) =>
    buildProcessor({
      type: TYPE,
      definition,
      handler,
      sink: { record: async () => ({ id: 'dlq-1', created: true }) },
      alerter: { raise: () => undefined } as unknown as Alerter,
      deadLetters: { prepare: () => undefined },
      logger: createLogger('test', 'silent'),
    });

  it('runs without metrics or hooks, on both paths', async () => {
    const def = TEST_CATALOG.get(TYPE);
    expect(await bare(def, async () => 'ok')(fakeJob().job)).toBe('ok');
    const err = netError();
    expect(await rejection(bare(def, async () => Promise.reject(err))(fakeJob().job))).toBe(err);
  });

  it('runs with hooks that define none of the callbacks', async () => {
    const process = buildProcessor({
      type: TYPE,
      definition: TEST_CATALOG.get(TYPE),
      handler: async () => 'ok',
      sink: { record: async () => ({ id: 'dlq-1', created: true }) },
      alerter: { raise: () => undefined } as unknown as Alerter,
      deadLetters: { prepare: () => undefined },
      logger: createLogger('test', 'silent'),
      hooks: {},
    });
    expect(await process(fakeJob().job)).toBe('ok');
    await rejection(
      buildProcessor({
        ...({} as ProcessorDeps),
        type: TYPE,
        definition: TEST_CATALOG.get(TYPE),
        handler: async () => Promise.reject(new PermanentError('no')),
        sink: { record: async () => ({ id: 'd', created: true }) },
        alerter: { raise: () => undefined } as unknown as Alerter,
        deadLetters: { prepare: () => undefined },
        logger: createLogger('test', 'silent'),
        hooks: {},
      })(fakeJob().job),
    );
  });

  it('takes the time limit from the type’s definition unless one is given', async () => {
    const def = { ...TEST_CATALOG.get(TYPE), timeoutMs: 20 };
    const e = await rejection(bare(def, () => new Promise(() => undefined))(fakeJob().job));
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e.message).toBe('attempt timed out after 20 ms');
  });
});

describe('processor: the hourly history (BULLPEN_HISTORY)', () => {
  /** A harness whose history records each attempt as [queue, outcome, has a duration, wait]. */
  function withHistory(handler?: ProcessorDeps['handler']) {
    const recorded: Array<[string, string, boolean, number | undefined]> = [];
    const h = harness({
      handler,
      history: { record: (queue, outcome, durationMs, waitMs) => recorded.push([queue, outcome, (durationMs ?? -1) >= 0, waitMs]) },
    });
    return { ...h, recorded };
  }

  it('records a first attempt’s wait from when it could run (creation plus its delay) to its start', async () => {
    const h = withHistory();
    await h.process(fakeJob({ timestamp: 1_000, delay: 500, processedOn: 4_000 }).job);
    expect(h.recorded).toEqual([[TYPE, 'completed', true, 2_500]]);
  });

  it('never records a negative wait (a worker clock behind the producer’s), nor one without a start time', async () => {
    const h = withHistory();
    await h.process(fakeJob({ timestamp: 5_000, processedOn: 4_000 }).job);
    await h.process(fakeJob({ timestamp: 5_000 }).job);
    expect(h.recorded).toEqual([
      [TYPE, 'completed', true, 0],
      [TYPE, 'completed', true, undefined],
    ]);
  });

  it('records no wait for a later attempt, or for a job an operator retried (its creation time is old)', async () => {
    const h = withHistory(async () => {
      throw netError();
    });
    await rejection(h.process(fakeJob({ attemptsMade: 1, timestamp: 1_000, processedOn: 9_000 }).job));
    await rejection(h.process(fakeJob({ attemptsMade: 2, timestamp: 1_000, processedOn: 9_000 }).job));
    await rejection(h.process(fakeJob({ timestamp: 1_000, processedOn: 9_000, stacktrace: ['Error: earlier'] }).job));
    expect(h.recorded).toEqual([
      [TYPE, 'retried', true, undefined],
      [TYPE, 'failed', true, undefined],
      [TYPE, 'retried', true, undefined],
    ]);
  });

  it('records a first attempt that fails with its wait, and one refused before the handler as failed', async () => {
    const h = withHistory(async () => {
      throw netError();
    });
    await rejection(h.process(fakeJob({ timestamp: 1_000, processedOn: 1_300 }).job));
    await rejection(h.process(fakeJob({ name: 'other-type', timestamp: 1_000, processedOn: 1_300 }).job));
    expect(h.recorded).toEqual([
      [TYPE, 'retried', true, 300],
      [TYPE, 'failed', true, 300],
    ]);
  });
});
