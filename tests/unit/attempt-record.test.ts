import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { AttemptLog } from '@/lib/runtime/attempt-log';
import {
  ATTEMPT_ENTRY_MAX_BYTES,
  ATTEMPT_MESSAGE_CHARS,
  encodeAttempt,
  parseAttemptRecord,
  unrecordedCompletion,
} from '@/lib/runtime/attempt-record';

const entry = { attempt: 1, start: 1_000, end: 1_250, durationMs: 250, worker: 'bullpen:h:1', outcome: 'retried' as const, backoffMs: 400 };

describe('attempt record lines', () => {
  it('keeps a short entry whole, on one line', () => {
    const line = encodeAttempt({ ...entry, errorClass: 'server', message: 'line one\nline two' });
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ ...entry, errorClass: 'server', message: 'line one\nline two' });
  });

  it('cuts a long message to its characters, then to the entry’s bytes, whatever the characters', () => {
    expect(JSON.parse(encodeAttempt({ ...entry, message: 'x'.repeat(5_000) })).message).toBe(`${'x'.repeat(ATTEMPT_MESSAGE_CHARS - 1)}…`);
    for (const ch of ['é', '😀', '\u0007', '"']) {
      const line = encodeAttempt({ ...entry, message: ch.repeat(5_000) });
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(ATTEMPT_ENTRY_MAX_BYTES);
      const message = JSON.parse(line).message as string;
      expect(message.endsWith('…')).toBe(true);
    }
    // Six bytes a character as JSON: as much of the message is kept as fits, one character more would not.
    const tight = encodeAttempt({ ...entry, message: '\u0007'.repeat(5_000) });
    expect(Buffer.byteLength(tight)).toBeGreaterThan(ATTEMPT_ENTRY_MAX_BYTES - 6);
  });

  it('reads the entries in time order, skipping a line that is not one, with the dropped count', () => {
    const later = encodeAttempt({ ...entry, attempt: 2, start: 2_000, end: 2_100 });
    const lost = encodeAttempt({ end: 1_500, outcome: 'stalled', errorClass: 'stalled' });
    const record = parseAttemptRecord([later, 'not json', '{"attempt":"x"}', encodeAttempt(entry), lost].join('\n'), '3');
    expect(record.entries.map((e) => e.start ?? e.end)).toEqual([1_000, 1_500, 2_000]);
    expect(record.dropped).toBe(3);
    expect(parseAttemptRecord(null, null)).toEqual({ entries: [], dropped: 0 });
  });
});

describe('a completed job’s last attempt from BullMQ’s own fields', () => {
  const job = { attemptsMade: 1, processedOn: 5_000, finishedOn: 5_040, processedBy: 'bullpen:h:7' };
  const completed = { attempt: 1, start: 5_001, end: 5_039, durationMs: 38, worker: 'bullpen:h:7', outcome: 'completed' as const };

  it('is the one entry of a job that completed at its first attempt (no record)', () => {
    expect(unrecordedCompletion({ entries: [], dropped: 0 }, job)).toEqual({
      attempt: 1,
      start: 5_000,
      end: 5_040,
      durationMs: 40,
      worker: 'bullpen:h:7',
      outcome: 'completed',
    });
  });

  it('follows the recorded failures when the completion’s own entry is not written yet', () => {
    const retried = { ...entry, start: 1_000, end: 1_250 };
    expect(unrecordedCompletion({ entries: [retried], dropped: 0 }, { ...job, attemptsMade: 2 })).toMatchObject({
      attempt: 2,
      start: 5_000,
    });
  });

  it('is nothing when the record holds this completion, or the job has no times', () => {
    expect(unrecordedCompletion({ entries: [{ ...entry }, completed], dropped: 0 }, job)).toBeUndefined();
    expect(unrecordedCompletion({ entries: [], dropped: 0 }, { attemptsMade: 0 })).toBeUndefined();
  });

  it('is the new run of a job run again after it completed: the record’s completion ended before it started', () => {
    const earlier = { ...completed, start: 1_000, end: 1_040 };
    expect(unrecordedCompletion({ entries: [earlier], dropped: 0 }, job)).toMatchObject({ start: 5_000, end: 5_040 });
  });
});

describe('the attempt log writes no entry for a job’s only attempt', () => {
  // Entries wait for a flush that never comes: nothing here touches Redis.
  const log = () => new AttemptLog({ redis: {} as never, worker: 'bullpen:h:1', flushIntervalMs: 60_000 });
  /** BullMQ's `completed` event for attempt `attempt`: attemptsMade already counts it. */
  const finish = (l: AttemptLog, attempt: number, fields: Partial<Job>) => {
    const hooks = l.hooks();
    const ctx = { jobId: '7', type: 'notify', attempt };
    hooks.onStart?.(ctx);
    hooks.onComplete?.({ ...ctx, durationMs: 3, result: undefined });
    const job = {
      id: '7',
      queueQualifiedName: 'bull:notify',
      timestamp: 1,
      attemptsMade: attempt,
      attemptsStarted: attempt,
      stacktrace: [],
      processedOn: 5_000,
      finishedOn: 5_040,
      ...fields,
    };
    l.completed('notify', job as unknown as Job);
    return l.waiting;
  };

  it('skips a first attempt that completed, and only that', () => {
    expect(finish(log(), 1, {})).toBe(0);
    expect(finish(log(), 2, {})).toBe(1);
    // A run the stalled check put back: started twice, still attempt 1.
    expect(finish(log(), 1, { attemptsStarted: 2 })).toBe(1);
    // An operator's retry of a failed job: attempt 1 again, its earlier failure's stack kept.
    expect(finish(log(), 1, { stacktrace: ['Error: upstream unavailable'] })).toBe(1);
  });

  it('writes a later attempt’s completion with the times BullMQ kept, as the job page reads an only one', async () => {
    // A connection that takes the record's script and keeps what each call was given.
    const calls: unknown[][] = [];
    const redis = {
      defineCommand(name: string) {
        (this as Record<string, unknown>)[name] = async (_keys: number, ...rest: unknown[]) => {
          calls.push(rest);
          return 1;
        };
      },
    };
    const l = new AttemptLog({ redis: redis as never, worker: 'bullpen:h:1', flushIntervalMs: 60_000 });
    finish(l, 3, {});
    expect(await l.flush()).toBe(1);
    const [key, , , , created, line] = calls[0] as string[];
    expect([key, created]).toEqual(['bull:notify:7', '1']);
    expect(parseAttemptRecord(line, '0').entries).toEqual([
      { attempt: 3, start: 5_000, end: 5_040, durationMs: 40, worker: 'bullpen:h:1', outcome: 'completed' },
    ]);
  });
});
