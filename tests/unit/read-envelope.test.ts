import { describe, expect, it } from 'vitest';
import { readEnvelope } from '@/lib/jobs/envelope';
import { formatJob } from '@/dashboard/jobs/job-summary';
import type { Job } from 'bullmq';

describe("reading a job's data: Bullpen's envelope or a plain producer's bare payload", () => {
  it("passes Bullpen's envelope through as it is", () => {
    const data = { payload: { a: 1 }, requestId: 'r1', dispatchedAt: 5, tenant: { orgId: 'acme' } };
    expect(readEnvelope({ id: '1', data })).toEqual({ envelope: data, bare: false });
  });

  it('refuses a broken envelope instead of treating it as a payload', () => {
    const r = readEnvelope({ id: '1', data: { payload: {}, requestId: 'r1', dispatchedAt: 5, tenant: { orgId: '../etc' } } });
    expect(r).toMatchObject({ error: expect.stringMatching(/^Invalid job envelope: .*tenant/s) });
  });

  it('wraps a bare payload, its tenant from the job option first, then the payload', () => {
    expect(readEnvelope({ id: '7', data: { orgId: 'acme', workspaceId: 'ws-1', n: 1 }, timestamp: 42 })).toEqual({
      envelope: {
        payload: { orgId: 'acme', workspaceId: 'ws-1', n: 1 },
        requestId: 'bullmq-7',
        dispatchedAt: 42,
        tenant: { orgId: 'acme', workspaceId: 'ws-1' },
      },
      bare: true,
    });
    const fromOpts = readEnvelope({ id: '8', data: { orgId: 'acme' }, timestamp: 1, opts: { tenant: { orgId: 'globex' } } });
    expect(fromOpts).toMatchObject({ envelope: { tenant: { orgId: 'globex' } }, bare: true });
  });

  it('gives a bare payload no tenant when neither names a valid one, and keeps any value as the payload', () => {
    expect(readEnvelope({ id: '9', data: { orgId: '../x' }, timestamp: 1, opts: { tenant: 'acme' } })).toEqual({
      envelope: { payload: { orgId: '../x' }, requestId: 'bullmq-9', dispatchedAt: 1 },
      bare: true,
    });
    for (const data of [null, 3, 'text', [1, 2]]) {
      expect(readEnvelope({ id: '1', data, timestamp: 1 })).toMatchObject({ envelope: { payload: data }, bare: true });
    }
  });

  it("shows a bare job's tenant in the job lists", () => {
    const job = { id: '3', name: 'quota-check', data: { orgId: 'acme' }, opts: {}, timestamp: 1 } as unknown as Job;
    expect(formatJob(job, 'quota-check', 'waiting').tenant).toEqual({ orgId: 'acme' });
  });
});
