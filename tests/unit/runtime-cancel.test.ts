import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Alert, Alerter } from '@/lib/alerts/alerter';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { CancelledError, cancelledBy } from '@/lib/errors/cancelled-error';
import { classifyError } from '@/lib/errors/classify';
import { silentLogger } from '@/lib/logging/logger';
import type { JobContext } from '@/lib/runtime/handler';
import type { JobRun } from '@/lib/runtime/job-run';
import { RunningAttempts } from '@/lib/runtime/running-attempts';
import { buildProcessor } from '@/lib/runtime/processor';
import { TEST_CATALOG } from '../helpers/test-jobs';

/**
 * The runtime's half of a cancel (docs/architecture.md, "Cancel"): the run found by its
 * job id is stopped with a CancelledError, which fails the job for good, with no critical
 * alert and a dead letter only where the type asks for one.
 */
const TYPE = 'notify';

function fakeJob(): Job {
  return {
    id: 'job-1',
    name: TYPE,
    data: { payload: { webhookId: 'wh-1', event: 'e', payload: {} }, requestId: 'r', dispatchedAt: 1 },
    attemptsMade: 0,
    opts: { attempts: 10 },
    timestamp: 1,
    stacktrace: [],
    log: async () => 1,
    updateProgress: async () => undefined,
  } as unknown as Job;
}

function harness(handler: (ctx: JobContext) => Promise<unknown>, opts: { deadLetterOnCancel?: boolean; cancelAtStart?: string } = {}) {
  const running = new RunningAttempts<JobRun>();
  const alerts: Alert[] = [];
  const records: DeadLetterInput[] = [];
  const prepared: Array<() => Promise<void>> = [];
  const processor = buildProcessor({
    type: TYPE,
    // notify is critical: a final failure of it alerts, unless it was cancelled.
    definition: { ...TEST_CATALOG.get(TYPE), deadLetterOnCancel: opts.deadLetterOnCancel ?? false },
    handler,
    sink: {
      record: async (input) => {
        records.push(input);
        return { id: 'dlq-1', created: true };
      },
    },
    alerter: { raise: (a: Alert) => alerts.push(a) } as unknown as Alerter,
    deadLetters: { prepare: (_job, write) => prepared.push(write) },
    logger: silentLogger,
    running,
    // Called after the run is registered and before its handler is raced: a cancel that comes that early.
    hooks: opts.cancelAtStart ? { onStart: (c) => running.find(c.jobId)?.abortWith(new CancelledError(opts.cancelAtStart!)) } : undefined,
  });
  const process = async (job: Job) => {
    try {
      return await processor(job);
    } finally {
      for (const write of prepared.splice(0)) await write();
    }
  };
  return { process, running, alerts, records };
}

describe('a cancelled attempt', () => {
  it('ends at once even when its handler ignores the signal: failed for good, no dead letter, no alert', async () => {
    let signal: AbortSignal | undefined;
    const h = harness(async (ctx) => {
      signal = ctx.signal;
      await new Promise((r) => setTimeout(r, 60_000).unref());
      return 'ran to the end';
    });
    const result = h.process(fakeJob()).catch((e: Error) => e);
    await new Promise((r) => setImmediate(r));
    h.running.find('job-1')!.abortWith(new CancelledError('alice'));
    const e = await result;
    // BullMQ skips the remaining attempts only for an UnrecoverableError.
    expect(e).toBeInstanceOf(UnrecoverableError);
    expect((e as Error).message).toBe('Cancelled by alice');
    expect((e as Error).stack).toMatch(/^CancelledError: Cancelled by alice\n/);
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toBeInstanceOf(CancelledError);
    expect(h.records).toEqual([]);
    expect(h.alerts).toEqual([]);
    expect(h.running.size).toBe(0);
  });

  it('stops a handler that has not started yet: its signal is aborted when it first looks', async () => {
    let aborted: boolean | undefined;
    const h = harness(
      async (ctx) => {
        aborted = ctx.signal.aborted;
        await new Promise((r) => setTimeout(r, 60_000).unref());
      },
      { cancelAtStart: 'bob' },
    );
    const e = await h.process(fakeJob()).catch((err: Error) => err);
    expect((e as Error).message).toBe('Cancelled by bob');
    expect(aborted).toBe(true);
  });

  it('gets a dead letter of class cancelled where its type says so, still without the critical alert', async () => {
    const h = harness(() => new Promise(() => undefined), { deadLetterOnCancel: true });
    const result = h.process(fakeJob()).catch((e: Error) => e);
    await new Promise((r) => setImmediate(r));
    h.running.find('job-1')!.abortWith(new CancelledError('carol'));
    await result;
    expect(h.records).toHaveLength(1);
    expect(h.records[0].error).toMatchObject({ errorClass: 'cancelled', code: 'CANCELLED', message: 'Cancelled by carol' });
    expect(h.alerts).toEqual([]);
  });
});

describe('cancelledBy and the cancelled class', () => {
  const stack = (reason: string, name = 'CancelledError') => `${name}: ${reason}\n    at somewhere`;

  it('names who cancelled a job only when both its failedReason and its last stack say cancelled', () => {
    expect(cancelledBy({ failedReason: 'Cancelled by alice', stacktrace: ['Error: older', stack('Cancelled by alice')] })).toBe('alice');
    // A handler's own error that reads the same is not an operator's cancel.
    expect(cancelledBy({ failedReason: 'Cancelled by alice', stacktrace: [stack('Cancelled by alice', 'Error')] })).toBeUndefined();
    expect(cancelledBy({ failedReason: 'Cancelled by alice', stacktrace: [stack('Cancelled by alice'), 'Error: later'] })).toBeUndefined();
    expect(cancelledBy({ failedReason: 'timed out', stacktrace: [stack('timed out')] })).toBeUndefined();
    expect(cancelledBy({ failedReason: 'Cancelled by alice', stacktrace: null })).toBeUndefined();
  });

  it('classifies a cancel as cancelled and never retryable, by class or by name', () => {
    expect(classifyError(new CancelledError('alice'))).toEqual({ errorClass: 'cancelled', retryable: false, code: 'CANCELLED' });
    expect(classifyError(Object.assign(new Error('x'), { name: 'CancelledError' }))).toMatchObject({
      errorClass: 'cancelled',
      retryable: false,
    });
  });
});
