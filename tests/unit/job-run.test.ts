import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { CancelledError } from '@/lib/errors/cancelled-error';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { silentLogger } from '@/lib/logging/logger';
import { JobRun } from '@/lib/runtime/job-run';

const runOf = () => new JobRun({ id: '1', attemptsMade: 0, opts: {} } as unknown as Job, 'notify', undefined, silentLogger, undefined);

describe('an attempt’s race against its time limit (lib/runtime/job-run.ts)', () => {
  it('ends with the handler when it is first', async () => {
    const run = runOf();
    await expect(run.race(Promise.resolve(7), 1_000)).resolves.toBe(7);
    run.end();
    await expect(runOf().race(Promise.reject(new Error('boom')), 1_000)).rejects.toThrow('boom');
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
      await expect(run.race(work, 10)).rejects.toBeInstanceOf(TimeoutError);
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
    await expect(run.race(new Promise(() => undefined), 1_000)).rejects.toBeInstanceOf(CancelledError);
    run.end();
  });
});
