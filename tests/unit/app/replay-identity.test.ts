import { describe, expect, it } from 'vitest';
import { editedReplayId } from '@/lib/jobs/replay-identity';
import { jobRunId } from '@/jobs/shared/job-run-id';

const R1 = 'replay-dlq-0123456789abcdef01234567-1';
const R2 = 'replay-dlq-0123456789abcdef01234567-2';

describe('editedReplayId', () => {
  it("appends the replay's job id, and replaces an earlier edit's instead of stacking", () => {
    expect(editedReplayId('orders:u-1:o-9:notify:v1', R1, { max: 512 })).toBe(`orders:u-1:o-9:notify:v1:${R1}`);
    expect(editedReplayId(`orders:u-1:o-9:notify:v1:${R1}`, R2, { previous: R1, max: 512 })).toBe(`orders:u-1:o-9:notify:v1:${R2}`);
  });

  it('hashes an id that would pass the limit, deterministically and within it', () => {
    const long = 'k'.repeat(500);
    const a = editedReplayId(long, R1, { max: 512 });
    expect(a.length).toBeLessThanOrEqual(512);
    expect(a).toMatch(new RegExp(`^replay:[0-9a-f]{64}:${R1}$`));
    expect(editedReplayId(long, R1, { max: 512 })).toBe(a);
    expect(editedReplayId(long, R2, { max: 512 })).not.toBe(a);
  });
});

describe('jobRunId', () => {
  const ctx = { type: 'memory-consolidation', jobId: 'replay-dlq-x-1', originJobId: '42' };

  it('continues the first run on a plain replay, and starts a new one on an edited replay', () => {
    expect(jobRunId(ctx)).toBe('42');
    expect(jobRunId({ ...ctx, editedReplay: R1 })).toBe(R1);
  });

  it("keys a run by the envelope's key, which an edited replay changes", () => {
    const k = 'mem:u-1:all:consolidate:v1';
    expect(jobRunId({ ...ctx, idempotencyKey: k })).not.toBe(jobRunId({ ...ctx, idempotencyKey: `${k}:${R1}`, editedReplay: R1 }));
  });
});
