import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { formatJob, formatJobDetail, jobDetailSchema, jobSummarySchema, normalizeProgress } from '@/dashboard/jobs/job-summary';
import { MAX_VALUE_BYTES, truncateText, truncateValue } from '@/dashboard/jobs/truncate';

/** A BullMQ-Job-shaped object: only the fields formatJob reads. */
function makeJob(overrides: Partial<Record<keyof Job, unknown>> = {}): Job {
  return {
    id: '17',
    name: 'webhook-dispatch',
    data: {
      payload: { webhookId: 'w1', event: 'memory.created', payload: { a: 1 } },
      tenant: { orgId: '42', workspaceId: 'ws-1' },
      requestId: 'req-1',
      idempotencyKey: 'webhook:u:e:send:1',
      dispatchedAt: 1_700_000_000_000,
    },
    opts: { attempts: 10, priority: 3, backoff: { type: 'full-jitter', delay: 1000 } },
    progress: { percent: 40, phase: 'generating', detail: { cluster: 2 } },
    priority: 3,
    delay: 0,
    timestamp: 1_700_000_000_000,
    attemptsMade: 2,
    attemptsStarted: 3,
    stalledCounter: 0,
    processedOn: 1_700_000_001_000,
    finishedOn: 1_700_000_002_000,
    failedReason: 'HTTP 503',
    stacktrace: ['Error: HTTP 500\n    at a', 'Error: HTTP 503\n    at b'],
    returnvalue: { delivered: true },
    ...overrides,
  } as unknown as Job;
}

describe('formatJob', () => {
  it('maps a job once into a plain, schema-valid summary', () => {
    const s = formatJob(makeJob(), 'webhook-dispatch', 'failed');
    expect(jobSummarySchema.parse(s)).toEqual(s);
    expect(s).toMatchObject({
      id: '17',
      queue: 'webhook-dispatch',
      state: 'failed',
      tenant: { orgId: '42', workspaceId: 'ws-1' },
      priority: 3,
      priorityName: 'HIGH',
      progress: { percent: 40, phase: 'generating', detail: { cluster: 2 } },
      attemptsMade: 2,
      maxAttempts: 10,
      createdAt: 1_700_000_000_000,
      finishedAt: 1_700_000_002_000,
      failedReason: 'HTTP 503',
    });
    expect(s.runAt).toBeUndefined();
    // Nothing of the payload travels in a list row.
    expect(JSON.stringify(s)).not.toContain('memory.created');
  });

  it('computes when a delayed job is due and survives non-envelope data', () => {
    const s = formatJob(makeJob({ delay: 5_000, data: { raw: true }, progress: 0 }), 'q');
    expect(s.runAt).toBe(1_700_000_005_000);
    expect(s.tenant).toBeUndefined();
    expect(s.progress).toEqual({ percent: 0 });
  });
});

describe('formatJobDetail', () => {
  it('splits the envelope from the payload and keeps each attempt’s stack', () => {
    const d = formatJobDetail(makeJob(), 'webhook-dispatch', 'failed');
    expect(jobDetailSchema.parse(d)).toEqual(d);
    expect(d.enveloped).toBe(true);
    expect(d.envelope).toEqual({ requestId: 'req-1', idempotencyKey: 'webhook:u:e:send:1', dispatchedAt: 1_700_000_000_000 });
    expect(d.payload).toEqual({
      value: { webhookId: 'w1', event: 'memory.created', payload: { a: 1 } },
      truncated: false,
      bytes: expect.any(Number),
    });
    expect(d.returnValue.value).toEqual({ delivered: true });
    expect(d.stacktrace).toHaveLength(2);
    expect(d.stacktrace[1]).toContain('HTTP 503');
  });

  it('truncates a huge payload and return value instead of breaking the page', () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const d = formatJobDetail(
      makeJob({ returnvalue: { big }, data: { payload: { big }, requestId: 'r', dispatchedAt: 1 } }),
      'q',
      'completed',
    );
    expect(d.payload.truncated).toBe(true);
    expect(d.payload.bytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(typeof d.payload.value).toBe('string');
    expect(Buffer.byteLength(d.payload.value as string)).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    expect(d.returnValue.truncated).toBe(true);
    expect(JSON.stringify(d).length).toBeLessThan(3 * MAX_VALUE_BYTES);
  });

  it('bounds long stacks and failure reasons', () => {
    const d = formatJobDetail(makeJob({ stacktrace: ['E'.repeat(100_000), null], failedReason: 'r'.repeat(10_000) }), 'q');
    expect(d.stacktrace).toHaveLength(1);
    expect(d.stacktrace[0].length).toBe(16 * 1024);
    expect(d.failedReason!.length).toBe(2 * 1024);
  });
});

describe('normalizeProgress', () => {
  it('accepts the runtime shape, bare numbers and junk', () => {
    expect(normalizeProgress({ percent: 80, phase: 'indexing' })).toEqual({ percent: 80, phase: 'indexing' });
    expect(normalizeProgress(140)).toEqual({ percent: 100 });
    expect(normalizeProgress(-3)).toEqual({ percent: 0 });
    expect(normalizeProgress('half')).toEqual({ percent: 0 });
    expect(normalizeProgress(null)).toEqual({ percent: 0 });
    expect(normalizeProgress({ percent: Number.NaN })).toEqual({ percent: 0 });
    expect(normalizeProgress({ percent: 10, detail: { blob: 'y'.repeat(10_000) } }).detail).toEqual({
      note: 'progress detail truncated',
      bytes: expect.any(Number),
    });
  });
});

describe('truncate', () => {
  it('never splits a multi-byte character', () => {
    const t = truncateText('é'.repeat(10), 5);
    expect(t).toEqual({ text: 'éé', truncated: true });
    expect(truncateText('abc', 5)).toEqual({ text: 'abc', truncated: false });
  });

  it('reports unserialisable values instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(truncateValue(cyclic).truncated).toBe(true);
    expect(truncateValue(10n as unknown).value).toMatch(/unserialisable/);
    expect(truncateValue(undefined)).toEqual({ value: null, truncated: false, bytes: 0 });
  });
});
