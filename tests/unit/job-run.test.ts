import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '@/lib/errors/cancelled-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { silentLogger } from '@/lib/logging/logger';
import { JobRun } from '@/lib/runtime/job-run';
import { AttemptDeadlines } from '@/lib/runtime/attempt-deadlines';

const runOf = () => new JobRun({ id: '1', attemptsMade: 0, opts: {} } as unknown as Job, 'notify', undefined, silentLogger, undefined);

/** `work` raced against a time limit of `ms`, as the processor runs an attempt: its line left at the end. */
function within<T>(run: JobRun, work: Promise<T>, ms: number): Promise<T> {
  const deadlines = new AttemptDeadlines(ms);
  deadlines.add(run);
  return run.race(work).finally(() => deadlines.remove(run));
}

describe('an attempt’s race against its time limit (lib/runtime/job-run.ts)', () => {
  it('ends with the handler when it is first', async () => {
    const run = runOf();
    await expect(within(run, Promise.resolve(7), 1_000)).resolves.toBe(7);
    await expect(within(runOf(), Promise.reject(new Error('boom')), 1_000)).rejects.toThrow('boom');
  });

  it('ends with a TimeoutError at the limit, and a handler that rejects later is not left unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const run = runOf();
      let rejectLate!: (err: Error) => void;
      const work = new Promise<never>((_, reject) => {
        rejectLate = reject;
      });
      await expect(within(run, work, 10)).rejects.toBeInstanceOf(TimeoutError);
      expect(run.timedOut).toBe(true);
      expect(run.signal.aborted).toBe(true);
      rejectLate(new Error('too late'));
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('ends at once when the attempt was cancelled before its handler started', async () => {
    const run = runOf();
    run.abortWith(new CancelledError('alice'));
    await expect(within(run, new Promise(() => undefined), 1_000)).rejects.toBeInstanceOf(CancelledError);
  });
});

/** A job that records what the attempt writes to it. */
function recordingJob(over: Partial<{ attemptsMade: number; opts: object }> = {}) {
  const logs: string[] = [];
  const progress: unknown[] = [];
  const job = {
    id: 42,
    attemptsMade: 2,
    opts: { attempts: 5 },
    ...over,
    updateProgress: async (v: unknown) => void progress.push(v),
    log: async (line: string) => void logs.push(line),
  };
  return { job: job as unknown as Job, logs, progress };
}

/** A logger whose child records the bindings it was made with. */
function bindingLogger() {
  const children: Record<string, unknown>[] = [];
  const logger = { child: (bindings: Record<string, unknown>) => (children.push(bindings), logger) };
  return { logger: logger as unknown as typeof silentLogger, children };
}

const envelope = {
  requestId: 'req-1',
  dispatchedAt: 1,
  data: {},
  tenant: { orgId: 'acme', workspaceId: 'ops' },
  idempotencyKey: 'idem-1',
  originJobId: 'origin-1',
  replayOf: 'dlq-1',
  editedReplay: 'alice',
};

describe('what an attempt tells its handler (lib/runtime/job-run.ts)', () => {
  it('numbers the attempt from the job and reads the envelope’s fields', () => {
    const { job } = recordingJob();
    const run = new JobRun(job, 'notify', envelope as never, silentLogger, undefined);
    expect([run.jobId, run.attempt, run.maxAttempts]).toEqual(['42', 3, 5]);
    expect([run.tenant, run.idempotencyKey, run.originJobId, run.replayOf, run.editedReplay, run.requestId]).toEqual([
      envelope.tenant,
      'idem-1',
      'origin-1',
      'dlq-1',
      'alice',
      'req-1',
    ]);
  });

  it('has one attempt by default, and the job id as the request id without an envelope', () => {
    const { job } = recordingJob({ attemptsMade: 0, opts: {} });
    const run = new JobRun(job, 'notify', undefined, silentLogger, undefined);
    expect([run.attempt, run.maxAttempts, run.requestId, run.tenant, run.idempotencyKey]).toEqual([1, 1, '42', undefined, undefined]);
    expect([run.originJobId, run.replayOf, run.editedReplay]).toEqual([undefined, undefined, undefined]);
  });

  it('builds its logger once, with the job’s fields and the tenant as org/workspace', () => {
    const { logger, children } = bindingLogger();
    const run = new JobRun(recordingJob().job, 'notify', envelope as never, logger, undefined);
    expect(run.logger).toBe(run.logger);
    expect(children).toEqual([
      { jobId: '42', queue: 'notify', attempt: 3, maxAttempts: 5, requestId: 'req-1', tenant: 'acme/ops', idempotencyKey: 'idem-1' },
    ]);
    const orgOnly = bindingLogger();
    void new JobRun(recordingJob().job, 'notify', { ...envelope, tenant: { orgId: 'acme' } } as never, orgOnly.logger, undefined).logger;
    expect(orgOnly.children[0]?.tenant).toBe('acme');
    const none = bindingLogger();
    void new JobRun(recordingJob().job, 'notify', undefined, none.logger, undefined).logger;
    expect(none.children[0]).toMatchObject({ tenant: undefined, requestId: undefined, idempotencyKey: undefined });
  });

  it('keeps its signal once made', () => {
    const run = new JobRun(recordingJob().job, 'notify', undefined, silentLogger, undefined);
    expect(run.signal).toBe(run.signal);
    expect(run.signal.aborted).toBe(false);
  });

  it('rounds and clamps progress, logs each new phase once, and tells the hooks', async () => {
    const { job, logs, progress } = recordingJob();
    const seen: unknown[] = [];
    const run = new JobRun(job, 'notify', undefined, silentLogger, { onProgress: (ctx) => seen.push(ctx) });
    await run.progress(10.4, 'analyzing', { n: 1 });
    await run.progress(40.6, 'analyzing');
    await run.progress(140, 'indexing');
    await run.progress(-5);
    expect(progress).toEqual([
      { percent: 10, phase: 'analyzing', detail: { n: 1 } },
      { percent: 41, phase: 'analyzing', detail: undefined },
      { percent: 100, phase: 'indexing', detail: undefined },
      { percent: 0, phase: undefined, detail: undefined },
    ]);
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z 10% analyzing$/);
    expect(logs[1]).toMatch(/Z 100% indexing$/);
    expect(seen).toEqual(progress.map((p) => ({ jobId: '42', type: 'notify', progress: p })));
  });

  it('writes a handler’s line to the job’s log with a timestamp', async () => {
    const { job, logs } = recordingJob();
    await new JobRun(job, 'notify', undefined, silentLogger, undefined).log('fetched 3 pages');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z fetched 3 pages$/);
  });

  it('stops once: a cancel is not a timeout, and a later timeout changes nothing', async () => {
    const run = runOf();
    const cancelled = new CancelledError('alice');
    run.abortWith(cancelled);
    run.abortWith(new TimeoutError(10));
    expect(run.timedOut).toBe(false);
    expect(run.signal.reason).toBe(cancelled);
    await expect(within(run, new Promise(() => undefined), 1_000)).rejects.toBe(cancelled);
  });

  it('leaves its line at the end, so a finished attempt never times out', async () => {
    const run = runOf();
    await within(run, Promise.resolve(1), 20);
    await new Promise((r) => setTimeout(r, 40));
    expect(run.timedOut).toBe(false);
    expect(run.signal.aborted).toBe(false);
  });

  it('times out after its limit, not before', async () => {
    const run = runOf();
    const started = Date.now();
    await expect(within(run, new Promise(() => undefined), 50)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(run.signal.reason).toBeInstanceOf(TimeoutError);
  });
});
