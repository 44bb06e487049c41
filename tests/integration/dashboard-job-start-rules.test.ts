import { describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { replaySelected, startReplayAll } from '@/dashboard/dead-letters/dead-letters-bulk';
import { replayDeadLetter } from '@/dashboard/dead-letters/dead-letters-replay';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { defineJob } from '@/lib/jobs/job-definition';
import { TEST_JOBS } from '../helpers/test-jobs';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * Issue 21 item 2: an operator ran data-deletion for any org from "Add a job", and sent
 * webhook-dispatch to another tenant's webhook. Destructive types need an admin and the
 * typed org id on every path that starts a job from the dashboard; a job added there
 * names only its own tenant's resources (docs/security.md). Here on the test table's
 * destructive `erase` and its `notify`, whose webhookId is an owned resource.
 */
const server = useTestRedis();
const OPERATOR = { role: 'operator' } as const;
const ADMIN = { role: 'admin' } as const;

async function jobCount(b: Bullpen, type: string): Promise<number> {
  const q = b.queues.get(type);
  return (await q.count()) + (await q.getDelayedCount());
}

function deletionDeadLetter(i: number, orgId: string): DeadLetterInput {
  const payload = { orgId };
  return {
    queue: 'erase',
    jobId: `del-${i}`,
    jobType: 'erase',
    jobData: { payload, requestId: `req-${i}`, dispatchedAt: Date.now(), tenant: { orgId } },
    error: { message: 'store unavailable', errorClass: 'network' },
    attempts: 5,
    failedAt: Date.now() - 1_000 + i,
    tenant: { orgId },
    source: 'runtime',
  };
}

describe('destructive job types from the dashboard', () => {
  it('"Add a job": refused to an operator; an admin must type the org id the job deletes', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const add = (extra: Record<string, unknown>, who: { role: 'operator' | 'admin' }) =>
      ops.add({ queue: 'erase', payload: '{"orgId": "acme"}', ...extra }, who);

    await expect(add({ confirm: 'acme' }, OPERATOR)).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
    await expect(add({}, ADMIN)).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { confirm: [expect.stringContaining('acme')] } },
    });
    await expect(add({ confirm: 'globex' }, ADMIN)).rejects.toMatchObject({ code: 'VALIDATION' });
    // The tenant and the payload must name one org: the one typed.
    await expect(add({ orgId: 'globex', confirm: 'acme' }, ADMIN)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await jobCount(b, 'erase')).toBe(0);

    const added = await add({ confirm: ' acme ' }, ADMIN);
    expect(added.queue).toBe('erase');
    expect(await jobCount(b, 'erase')).toBe(1);
    // Other types are as before for an operator.
    await expect(ops.add({ queue: 'tidy', payload: '{}' }, OPERATOR)).resolves.toMatchObject({ queue: 'tidy' });
  });

  it('duplicate and retry: refused to an operator, and to an admin without the org id', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const { jobId } = await b.dispatcher.dispatch('erase', { orgId: 'acme' }, { tenant: { orgId: 'acme' } });

    await expect(ops.duplicate('erase', jobId, {}, { role: 'operator', confirm: 'acme' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(ops.duplicate('erase', jobId, {}, ADMIN)).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(ops.retry('erase', jobId, 'olivia', { role: 'operator', confirm: 'acme' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(ops.retry('erase', jobId, 'ada', ADMIN)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await jobCount(b, 'erase')).toBe(1);
    await ops.duplicate('erase', jobId, {}, { role: 'admin', confirm: 'acme' });
    expect(await jobCount(b, 'erase')).toBe(2);
    // Past the rule, the retry meets its own: only failed or completed jobs.
    await expect(ops.retry('erase', jobId, 'ada', { role: 'admin', confirm: 'acme' })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('replay: an admin with the org id replays one; bulk replays and retries leave them alone', async () => {
    const b = await server.readyBullpen();
    const [one, two] = [(await b.dlq.record(deletionDeadLetter(1, 'acme'))).id, (await b.dlq.record(deletionDeadLetter(2, 'globex'))).id];

    await expect(
      replayDeadLetter(b, one, { by: 'olivia', expectedReplays: 0 }, { role: 'operator', confirm: 'acme' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(replayDeadLetter(b, one, { by: 'ada', expectedReplays: 0 }, { role: 'admin', confirm: 'globex' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    // An edit cannot move the deletion to another org past the confirmation: the org is locked, and typed.
    await expect(
      replayDeadLetter(b, one, { by: 'ada', expectedReplays: 0, payload: { orgId: 'globex' } }, { role: 'admin', confirm: 'acme' }),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await b.dlq.get(one))?.status).toBe('pending');

    const selected = await replaySelected(b, [{ id: two, replays: 0 }], 'olivia');
    expect(selected.done).toEqual([]);
    expect(selected.skipped).toEqual([{ id: two, reason: expect.stringContaining('destroys data') }]);
    const all = await startReplayAll(
      b,
      new BulkRunner(b.redis, b.keys, b.logger, b.audit),
      {},
      { by: 'olivia', limit: 100, now: Date.now() },
    );
    const finished = await all.finished;
    expect(finished).toMatchObject({ succeeded: 0, skipped: 2 });
    // Told apart from entries that changed meanwhile: these are waiting for an admin, not gone.
    expect(finished.message).toContain('0 skipped (changed meanwhile), 2 left pending (a destructive type');
    expect((await b.dlq.get(two))?.status).toBe('pending');
    const queues = new QueueOperations(b);
    await expect(queues.retrySelected('erase', ['del-1'], 'olivia')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(queues.checkBulkRetry('erase')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(queues.retryAllFailed('erase', 'olivia')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(queues.checkBulkRetry('tidy')).resolves.toBeUndefined();
    expect(await jobCount(b, 'erase')).toBe(0);

    const replayed = await replayDeadLetter(b, one, { by: 'ada', expectedReplays: 0 }, { role: 'admin', confirm: 'acme' });
    expect(replayed.status).toBe('replayed');
    expect(await jobCount(b, 'erase')).toBe(1);
  });
});

describe('resources named by a job added from the dashboard', () => {
  const hook = (webhookId: string) => JSON.stringify({ webhookId, event: 'order.created', payload: {} });

  it('a webhook of its own tenant only; an unowned one by an admin only; a missing one by nobody', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    await b.webhooks.create({ id: 'wh-acme', url: 'https://example.com/a', orgId: 'acme' });
    await b.webhooks.create({ id: 'wh-globex', url: 'https://example.com/g', orgId: 'globex' });
    await b.webhooks.create({ id: 'wh-legacy', url: 'https://example.com/l' });
    const add = (webhookId: string, orgId: string | undefined, who: { role: 'operator' | 'admin' }) =>
      ops.add({ queue: 'notify', payload: hook(webhookId), ...(orgId ? { orgId } : {}) }, who);

    await expect(add('wh-globex', 'acme', OPERATOR)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { issues: [{ path: ['webhookId'], message: expect.stringContaining('belongs to organisation globex, not acme') }] },
    });
    await expect(add('wh-globex', 'acme', ADMIN)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(add('wh-acme', undefined, OPERATOR)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(add('wh-legacy', 'acme', OPERATOR)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('no owner'),
    });
    await expect(add('wh-gone', 'acme', ADMIN)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await jobCount(b, 'notify')).toBe(0);

    await add('wh-acme', 'acme', OPERATOR);
    await add('wh-legacy', 'acme', ADMIN);
    expect(await jobCount(b, 'notify')).toBe(2);
  });

  it('a resource kind with no owner in the runtime (a channel) is an admin’s to name', async () => {
    // The test table's `sync`, naming its channel as a resource (a kind lib/ keeps no owner of).
    const [notify, sync, ...rest] = TEST_JOBS;
    const jobs = [notify, defineJob({ ...sync, resourceFields: ['channelId'] }), ...rest];
    const b = await server.readyBullpen({ jobs });
    const ops = new JobOperations(b);
    const request = { queue: 'sync', payload: '{"channelId": "C0123ABCD"}', orgId: 'acme' };
    await expect(ops.add(request, OPERATOR)).rejects.toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('channelId') });
    await expect(ops.add(request, ADMIN)).resolves.toMatchObject({ queue: 'sync' });
  });
});
