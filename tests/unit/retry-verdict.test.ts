import { describe, expect, it } from 'vitest';
import { type ChainState, retryVerdict } from '@/lib/dlq/retry-verdict';
import { retryMarkOf, retryMarkSentence, retryMarkWords } from '@/dashboard/client/retry-mark';

const chain = (over: Partial<ChainState> = {}): ChainState => ({
  id: 'dlq-000000000000000000000001',
  status: 'pending',
  latestFailedJobId: '7',
  replays: [],
  ...over,
});

describe('retryVerdict: what the claim script decides, before anyone presses Retry', () => {
  it('retries a job without a record, and the newest failed job of a pending record', () => {
    expect(retryVerdict(undefined, '7')).toEqual({ retry: true });
    expect(retryVerdict(chain(), '7')).toEqual({ retry: true, deadLetterId: 'dlq-000000000000000000000001' });
  });

  it('refuses a discarded, replaying or replayed record, naming the job it was replayed as', () => {
    expect(retryVerdict(chain({ status: 'discarded' }), '7')).toEqual({
      retry: false,
      why: 'discarded',
      deadLetterId: 'dlq-000000000000000000000001',
    });
    expect(retryVerdict(chain({ status: 'replaying' }), '7')).toMatchObject({ retry: false, why: 'replaying' });
    const replays = [{ at: 100, newJobId: 'replay-dlq-000000000000000000000001-1' }];
    expect(retryVerdict(chain({ status: 'replayed', replays }), '7')).toMatchObject({
      retry: false,
      why: 'replayed',
      replayedAs: 'replay-dlq-000000000000000000000001-1',
    });
  });

  it('refuses an older job of a pending chain (the original after its replay failed): it would resend stale data', () => {
    const replays = [
      { at: 100, newJobId: 'r-1' },
      { at: 300, newJobId: 'r-2' },
    ];
    const c = chain({ latestFailedJobId: 'r-2', replays });
    expect(retryVerdict(c, '7', 50)).toMatchObject({ retry: false, why: 'superseded', replayedAs: 'r-1' });
    // The first replay's job, failed at 200, was replayed as the second.
    expect(retryVerdict(c, 'r-1', 200)).toMatchObject({ retry: false, why: 'superseded', replayedAs: 'r-2' });
    expect(retryVerdict(c, 'r-2', 400)).toMatchObject({ retry: true });
    // Without a failure time, the newest other replay.
    expect(retryVerdict(c, '7')).toMatchObject({ replayedAs: 'r-2' });
  });

  it('a retry in place names no other job', () => {
    const c = chain({ status: 'replayed', replays: [{ at: 100, newJobId: '7' }] });
    const v = retryVerdict(c, '7', 50);
    expect(v).toEqual({ retry: false, why: 'replayed', deadLetterId: 'dlq-000000000000000000000001' });
    const mark = retryMarkOf(v)!;
    expect(retryMarkWords(mark)).toBe('already retried');
    expect(retryMarkSentence(mark)).toMatch(/already retried/);
  });

  it('marks in words', () => {
    expect(retryMarkOf({ retry: true })).toBeUndefined();
    const replayed = retryMarkOf({ retry: false, why: 'replayed', deadLetterId: 'd', replayedAs: 'r-1' })!;
    expect(retryMarkWords(replayed)).toBe('replayed as');
    expect(retryMarkSentence(replayed)).toMatch(/replayed as r-1/);
    expect(retryMarkWords({ why: 'discarded', deadLetterId: 'd' })).toBe('discarded');
    expect(retryMarkWords({ why: 'replaying', deadLetterId: 'd' })).toBe('being replayed');
    expect(retryMarkSentence({ why: 'superseded', deadLetterId: 'd', replayedAs: 'r-2' })).toMatch(/replayed as r-2, which failed since/);
  });
});
