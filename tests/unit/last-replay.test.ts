import { describe, expect, it } from 'vitest';
import type { FailureRecord, ReplayRecord } from '@/lib/dlq/entry';
import { lastReplayOf, payloadSource } from '@/dashboard/dead-letters/last-replay';

const failure = (jobId: string, at: number, message = 'HTTP 400'): FailureRecord => ({
  at,
  jobId,
  attempts: 1,
  error: { message, errorClass: 'client', code: 'IDEMPOTENCY_CONFLICT' },
  source: 'runtime',
});
const replay = (newJobId: string, at: number, edited = false): ReplayRecord => ({ at, by: 'olivia', newJobId, edited });

describe('the last replay of a dead letter, from its own history', () => {
  it('is none before any replay', () => {
    expect(lastReplayOf([], [failure('7', 100)], undefined)).toBeUndefined();
  });

  it('failed when the record holds a failure of the replay job after the replay', () => {
    const out = lastReplayOf([replay('r-1', 200, true)], [failure('7', 100), failure('r-1', 300, 'conflict')], 'failed');
    expect(out).toEqual({
      n: 1,
      at: 200,
      by: 'olivia',
      newJobId: 'r-1',
      edited: true,
      outcome: 'failed',
      failure: { at: 300, message: 'conflict', code: 'IDEMPOTENCY_CONFLICT', errorClass: 'client' },
    });
  });

  it('otherwise what its job is doing now', () => {
    const replays = [replay('r-1', 200), replay('7', 400)];
    // A retry in place (same job id as the original) after the replay's failure.
    const failures = [failure('7', 100), failure('r-1', 300)];
    expect(lastReplayOf(replays, failures, 'active')).toMatchObject({ n: 2, newJobId: '7', outcome: 'running' });
    expect(lastReplayOf(replays, failures, 'completed')?.outcome).toBe('completed');
    expect(lastReplayOf(replays, failures, 'prioritized')?.outcome).toBe('waiting');
    expect(lastReplayOf(replays, failures, 'gone')?.outcome).toBe('gone');
    expect(lastReplayOf(replays, failures, 'failed')?.outcome).toBe('unknown');
    // A failure of the same job from before the replay is not the replay's.
    expect(lastReplayOf([replay('7', 200)], [failure('7', 100)], 'waiting')?.outcome).toBe('waiting');
  });

  it('names whose payload the record holds: the newest edited replay, else the original', () => {
    expect(payloadSource('7', [])).toEqual({ jobId: '7', edited: false });
    expect(payloadSource('7', [replay('r-1', 200, false)])).toEqual({ jobId: '7', edited: false });
    const replays = [replay('r-1', 200, true), replay('r-2', 300, false)];
    expect(payloadSource('7', replays)).toEqual({ jobId: 'r-1', replay: 1, edited: true });
    expect(payloadSource('7', [...replays, replay('r-3', 400, true)])).toEqual({ jobId: 'r-3', replay: 3, edited: true });
  });
});
