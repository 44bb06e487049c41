import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { editJobData } from '@/dashboard/jobs/job-data-edit';
import { useTestRedis } from '../helpers/use-test-redis';

const server = useTestRedis();
const TYPE = 'notify';
const payload = { webhookId: 'wh_1', event: 'order.created', payload: { orderId: 1 } };

async function stored(b: Bullpen, id: string): Promise<Record<string, unknown>> {
  return JSON.parse((await b.redis.hget(b.queues.get(TYPE).toKey(id), 'data')) ?? 'null');
}

describe('mend a job before it runs', () => {
  it('edits a delayed job in one step: the new payload, the same envelope, a line in its log', async () => {
    const b = await server.readyBullpen();
    const { jobId } = await b.dispatcher.dispatch(TYPE, payload, { delayMs: 60_000, tenant: { orgId: 'org-1' } });
    const before = await stored(b, jobId);
    const edited = { ...payload, payload: { orderId: 2, note: 'fixed' } };
    const out = await editJobData(b, TYPE, jobId, { payload: edited, original: payload, by: 'olivia', role: 'operator' });
    expect(out).toEqual({
      jobId,
      state: 'delayed',
      changes: [
        { path: 'payload.note', after: 'fixed' },
        { path: 'payload.orderId', before: 1, after: 2 },
      ],
    });
    const after = await stored(b, jobId);
    expect(after.payload).toEqual(edited);
    // Only the payload changed: tenant, request id and the rest of the envelope are kept.
    expect({ ...after, payload: undefined }).toEqual({ ...before, payload: undefined });
    expect(await b.queues.get(TYPE).getJobState(jobId)).toBe('delayed');
    const logs = await b.queues.get(TYPE).getJobLogs(jobId);
    expect(logs.logs.at(-1)).toMatch(/data edited by olivia from the dashboard: payload.note, payload.orderId$/);
  });

  it('edits a prioritized job, and refuses what edit-and-replay refuses, changing nothing', async () => {
    const b = await server.readyBullpen();
    const { jobId } = await b.dispatcher.dispatch(TYPE, payload, { priority: 'LOW' });
    expect(await b.queues.get(TYPE).getJobState(jobId)).toBe('prioritized');
    const original = await stored(b, jobId);
    const edit = (p: unknown, from: unknown = payload) =>
      editJobData(b, TYPE, jobId, { payload: p, original: from, by: 'olivia', role: 'operator' });
    await expect(edit({ ...payload, webhookId: 'wh_other' })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('locked field webhookId'),
    });
    await expect(edit({ ...payload, event: 42 })).rejects.toMatchObject({ code: 'VALIDATION', details: { issues: expect.any(Array) } });
    await expect(edit(payload)).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('changes nothing') });
    // The editor started from data that is not the job's any more (someone else edited it).
    await expect(edit({ ...payload, event: 'x' }, { ...payload, event: 'stale' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await stored(b, jobId)).toEqual(original);
    expect(await edit({ ...payload, event: 'order.paid' })).toMatchObject({ state: 'prioritized' });
    expect(((await stored(b, jobId)).payload as { event: string }).event).toBe('order.paid');
    // Past BULLPEN_MAX_PAYLOAD_BYTES, as a dispatch would be.
    const paid = { ...payload, event: 'order.paid' };
    await expect(edit({ ...paid, payload: { blob: 'x'.repeat(600 * 1024) } }, paid)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(((await stored(b, jobId)).payload as { event: string }).event).toBe('order.paid');
    await expect(editJobData(b, TYPE, 'no-such-job', { payload, original: payload, by: 'o', role: 'operator' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('leaves a destructive type to admins', async () => {
    const b = await server.readyBullpen();
    const data = { orgId: 'acme', reason: 'test' };
    const { jobId } = await b.dispatcher.dispatch('erase', data, { tenant: { orgId: 'acme' }, delayMs: 60_000 });
    const edit = (role: 'operator' | 'admin') =>
      editJobData(b, 'erase', jobId, { payload: { ...data, reason: 'typo fixed' }, original: data, by: 'x', role });
    await expect(edit('operator')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await edit('admin')).toMatchObject({ state: 'delayed', changes: [{ path: 'reason', before: 'test', after: 'typo fixed' }] });
  });

  it('refuses a job that started meanwhile, with a message, and leaves its data whole', async () => {
    const b = await server.readyBullpen();
    const queue = b.queues.get(TYPE);
    const { jobId } = await b.dispatcher.dispatch(TYPE, payload);
    const original = await stored(b, jobId);
    let release: () => void = () => undefined;
    const running = new Promise<void>((r) => {
      release = r;
    });
    let started: () => void = () => undefined;
    const active = new Promise<void>((r) => {
      started = r;
    });
    const seen: unknown[] = [];
    const worker = new Worker(
      TYPE,
      async (job) => {
        seen.push(job.data.payload);
        started();
        await running;
      },
      { connection: b.workerConnection(), prefix: b.keys.queuePrefix(TYPE) },
    );
    try {
      // The editor opened while the job waited; a worker took it before the save.
      await active;
      await expect(
        editJobData(b, TYPE, jobId, { payload: { ...payload, event: 'late' }, original: payload, by: 'olivia', role: 'operator' }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/is active now, so its data was not changed.*started meanwhile/),
      });
      expect(await stored(b, jobId)).toEqual(original);
      expect(await queue.getJobState(jobId)).toBe('active');
    } finally {
      release();
      await worker.close();
    }
    expect(seen).toEqual([payload]);
    expect(await stored(b, jobId)).toEqual(original);
  });
});
