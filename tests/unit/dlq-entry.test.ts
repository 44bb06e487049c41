import { describe, expect, it } from 'vitest';
import { deadLetterId, replayJobId, type DeadLetterEntry } from '@/lib/dlq/entry';
import { fromHash, toHashFields } from '@/lib/dlq/entry-codec';
import { deadLetterFilterSchema, matchesFilter } from '@/lib/dlq/filter';
import { toDeadLetterInput } from '@/lib/dlq/dead-letter-input';

/** A stored entry; `makeEntry({ status: 'discarded' })`. */
function makeEntry(overrides: Partial<DeadLetterEntry> = {}): DeadLetterEntry {
  return {
    id: deadLetterId('webhook-dispatch', '42'),
    queue: 'webhook-dispatch',
    originalJobId: '42',
    jobType: 'webhook-dispatch',
    jobData: { payload: { big: 9_007_199_254_740_991, list: [] }, requestId: 'r', dispatchedAt: 1, tenant: { orgId: 'org-a' } },
    payload: { big: 9_007_199_254_740_991, list: [] },
    error: { message: 'boom', stack: 'Error: boom', code: 'HTTP_500', errorClass: 'server' },
    attempts: 10,
    failedAt: 1_700_000_000_123,
    tenant: { orgId: 'org-a' },
    status: 'pending',
    source: 'runtime',
    replays: [],
    failures: [
      {
        at: 1_700_000_000_123,
        jobId: '42',
        attempts: 10,
        error: { message: 'boom', code: 'HTTP_500', errorClass: 'server' },
        source: 'runtime',
      },
    ],
    updatedAt: 1_700_000_000_200,
    ...overrides,
  };
}

/** An entry's hash as the store writes it. */
function hashOf(entry: DeadLetterEntry): Record<string, string> {
  const flat = toHashFields(entry, entry.payload === undefined ? undefined : JSON.stringify(entry.payload));
  const hash: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return hash;
}

describe('dead-letter ids', () => {
  it('derive from queue and job id only', () => {
    expect(deadLetterId('webhook-dispatch', '42')).toBe(deadLetterId('webhook-dispatch', '42'));
    expect(deadLetterId('webhook-dispatch', '42')).toMatch(/^dlq-[0-9a-f]{24}$/);
    expect(deadLetterId('webhook-dispatch', '42')).not.toBe(deadLetterId('slack-sync', '42'));
    // The separator keeps ("a", "bc") and ("ab", "c") apart.
    expect(deadLetterId('a', 'bc')).not.toBe(deadLetterId('ab', 'c'));
    expect(replayJobId('dlq-0123456789abcdef01234567', 2)).toBe('replay-dlq-0123456789abcdef01234567-2');
  });
});

describe('entry codec', () => {
  it('round-trips an entry through its hash fields without touching user data', () => {
    const entry = makeEntry();
    const hash = hashOf(entry);
    expect(hash).toMatchObject({ status: 'pending', errorClass: 'server', tenantOrg: 'org-a', failedAt: '1700000000123' });
    expect(fromHash(hash)).toEqual(entry);
    expect(fromHash({})).toBeUndefined();
  });

  it('stores the payload once: in its own field, not in the doc', () => {
    const entry = makeEntry();
    const hash = hashOf(entry);
    expect(hash.payload).toBe('{"big":9007199254740991,"list":[]}');
    expect(hash.doc).not.toContain('9007199254740991');
    expect(Object.keys(JSON.parse(hash.doc).jobData)).toEqual(['requestId', 'dispatchedAt', 'tenant']);
    expect(fromHash(hash)?.jobData).toEqual(entry.jobData);
  });

  it('reads an entry written before, with the payload in its doc twice', () => {
    const entry = makeEntry();
    const { payload: _payload, ...hash } = hashOf(entry);
    hash.doc = JSON.stringify({ jobData: entry.jobData, payload: entry.payload, error: entry.error, tenant: entry.tenant });
    expect(fromHash(hash)).toEqual(entry);
  });

  it('reads an entry without a payload, and one whose payload a read cut', () => {
    const none = makeEntry({ payload: undefined, jobData: { requestId: 'r', dispatchedAt: 1 } });
    expect(fromHash(hashOf(none))).toEqual(none);
    const cut = { ...hashOf(makeEntry()), payload: '{"big":90', payloadCut: '35' };
    const read = fromHash(cut);
    expect(read?.payload).toBeUndefined();
    expect(read?.payloadCut).toEqual({ bytes: 35, preview: '{"big":90' });
    expect(read?.jobData).toEqual({ requestId: 'r', dispatchedAt: 1, tenant: { orgId: 'org-a' } });
  });
});

describe('filters', () => {
  it('match an entry on every given dimension', () => {
    const e = makeEntry();
    expect(matchesFilter(e, {})).toBe(true);
    expect(matchesFilter(e, { type: 'webhook-dispatch', tenant: 'org-a', errorClass: 'server', status: 'pending' })).toBe(true);
    expect(matchesFilter(e, { tenant: 'org-b' })).toBe(false);
    expect(matchesFilter(e, { from: e.failedAt, to: e.failedAt })).toBe(true);
    expect(matchesFilter(e, { from: e.failedAt + 1 })).toBe(false);
    expect(matchesFilter(makeEntry({ tenant: undefined }), { tenant: 'org-a' })).toBe(false);
  });

  it('refuse a time range that ends before it starts', () => {
    expect(deadLetterFilterSchema.safeParse({ from: 2, to: 1 }).success).toBe(false);
    expect(deadLetterFilterSchema.safeParse({ tenant: 'org a' }).success).toBe(false);
  });
});

describe('toDeadLetterInput', () => {
  it('maps a failed job, classifying by the error named in the stack', () => {
    const job = {
      id: '7',
      data: { payload: { x: 1 }, requestId: 'r', dispatchedAt: 1, tenant: { orgId: 'org-z' } },
      failedReason: 'Invalid payload',
      stacktrace: ['Error: first', 'ZodError: Invalid payload\n    at parse'],
      attemptsMade: 1,
      finishedOn: 1_700_000_000_999,
      processedOn: 1,
      timestamp: 1,
    };
    expect(toDeadLetterInput('session-cleanup', job as never)).toEqual({
      queue: 'session-cleanup',
      jobId: '7',
      jobType: 'session-cleanup',
      jobData: job.data,
      error: { message: 'Invalid payload', stack: job.stacktrace[1], errorClass: 'validation' },
      attempts: 1,
      failedAt: 1_700_000_000_999,
      tenant: { orgId: 'org-z' },
      source: 'reconciler',
    });
  });
});
