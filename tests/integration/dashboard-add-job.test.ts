import { describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { addJobDefaults, type AddJobRequest } from '@/dashboard/client/add-job-form';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { PRIORITY } from '@/lib/jobs/priority';
import { useTestRedis } from '../helpers/use-test-redis';

const server = useTestRedis();

/** Jobs in every queue of the table, whatever their state: what a refusal must leave as it is. */
async function allJobs(b: Bullpen): Promise<number> {
  let n = 0;
  for (const type of b.jobs.names) n += await b.queues.get(type).count();
  const delayed = await Promise.all(b.jobs.names.map((t) => b.queues.get(t).getDelayedCount()));
  return n + delayed.reduce((a, c) => a + c, 0);
}

const OPERATOR = { role: 'operator' } as const;
const add = (ops: JobOperations, request: Partial<AddJobRequest>) => ops.add({ queue: 'tidy', payload: '{}', ...request }, OPERATOR);

describe('adding a job from the dashboard', () => {
  it('adds with the chosen priority, delay and tenant, and without them takes the type’s defaults', async () => {
    const bullpen = await server.readyBullpen();
    const ops = new JobOperations(bullpen);
    const queue = bullpen.queues.get('tidy');

    const added = await add(ops, { priority: 'CRITICAL', delay: '30', delayUnit: 'seconds', orgId: 'acme', workspaceId: 'ws-1' });
    expect(added).toEqual({
      jobId: expect.any(String),
      queue: 'tidy',
      priority: 'CRITICAL',
      delayMs: 30_000,
      tenant: { orgId: 'acme', workspaceId: 'ws-1' },
    });
    const job = await queue.getJob(added.jobId);
    expect(await queue.getJobState(added.jobId)).toBe('delayed');
    expect(job?.opts).toMatchObject({ priority: PRIORITY.CRITICAL, delay: 30_000 });
    expect(job?.data).toMatchObject({ payload: {}, tenant: { orgId: 'acme', workspaceId: 'ws-1' } });

    // Minutes are minutes; an organisation alone is a tenant.
    const inMinutes = await add(ops, { delay: 2, delayUnit: 'minutes', orgId: 'acme' });
    expect((await queue.getJob(inMinutes.jobId))?.opts.delay).toBe(120_000);
    expect((await queue.getJob(inMinutes.jobId))?.data.tenant).toEqual({ orgId: 'acme' });

    // Blank fields, as the form posts them: no delay, no tenant, the type's priority (LOW), so it is prioritized at once.
    const plain = await add(ops, { priority: '', delay: '', orgId: '', workspaceId: '' } as Partial<AddJobRequest>);
    expect(plain).toEqual({ jobId: expect.any(String), queue: 'tidy', priority: 'LOW', delayMs: 0 });
    expect(await queue.getJobState(plain.jobId)).toBe('prioritized');
    const plainJob = await queue.getJob(plain.jobId);
    expect(plainJob?.opts.priority).toBe(PRIORITY.LOW);
    expect(plainJob?.data.tenant).toBeUndefined();

    // The payload meets the type's schema through the dispatcher: its defaults are filled in.
    const withDefaults = await ops.add({ queue: 'tidy', payload: '{"batchSize": 50}' }, OPERATOR);
    expect((await bullpen.queues.get('tidy').getJob(withDefaults.jobId))?.data.payload).toEqual({
      maxAgeMs: 86_400_000,
      batchSize: 50,
    });
  });

  it('refuses a payload over BULLPEN_MAX_PAYLOAD_BYTES as an error of the payload field, and adds or duplicates nothing', async () => {
    const bullpen = await server.readyBullpen({ env: { BULLPEN_MAX_PAYLOAD_BYTES: '4096' } });
    const ops = new JobOperations(bullpen);
    await bullpen.webhooks.create({ id: 'w1', url: 'https://example.com/hook', orgId: 'acme' });
    const small = await ops.add({ queue: 'notify', payload: '{"webhookId": "w1", "event": "e", "payload": {}}', orgId: 'acme' }, OPERATOR);
    const before = await allJobs(bullpen);
    const big = JSON.stringify({ webhookId: 'w1', event: 'e', payload: { blob: 'x'.repeat(5_000) } });
    const tooLarge = {
      code: 'PAYLOAD_TOO_LARGE',
      details: { issues: [{ path: [], message: expect.stringMatching(/bytes of JSON, over the limit of 4,096 bytes/) }] },
    };
    await expect(ops.add({ queue: 'notify', payload: big, orgId: 'acme' }, OPERATOR)).rejects.toMatchObject(tooLarge);
    const edit = { webhookId: 'w1', event: 'e', payload: { blob: 'x'.repeat(5_000) } };
    await expect(ops.duplicate('notify', small.jobId, { payload: edit })).rejects.toMatchObject(tooLarge);
    expect(await allJobs(bullpen)).toBe(before);
  });

  it('refuses a payload its type’s schema or JSON refuses, naming the field, and adds nothing', async () => {
    const bullpen = await server.readyBullpen();
    const ops = new JobOperations(bullpen);
    const before = await allJobs(bullpen);

    await expect(ops.add({ queue: 'notify', payload: '{"webhookId": "w1", "event": 7}' }, OPERATOR)).rejects.toMatchObject({
      code: 'VALIDATION',
      details: {
        issues: expect.arrayContaining([expect.objectContaining({ path: ['event'] }), expect.objectContaining({ path: ['payload'] })]),
      },
    });
    await expect(ops.add({ queue: 'sync', payload: '{"channelId": "../etc"}' }, OPERATOR)).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { issues: [expect.objectContaining({ path: ['channelId'] })] },
    });
    await expect(add(ops, { payload: '{"orgId": ' })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { payload: [expect.stringMatching(/^line 1, column 11: /)] } },
    });
    expect(await allJobs(bullpen)).toBe(before);
  });

  it('refuses a bad tenant, delay or priority with the field it belongs to, and adds nothing', async () => {
    const bullpen = await server.readyBullpen();
    const ops = new JobOperations(bullpen);
    const before = await allJobs(bullpen);
    const refused = async (request: Record<string, unknown>, field: string, message: RegExp) => {
      const err = await add(ops, request as Partial<AddJobRequest>).catch((e: unknown) => e);
      expect(err, JSON.stringify(request)).toMatchObject({
        code: 'VALIDATION',
        details: { fieldErrors: { [field]: [expect.stringMatching(message)] } },
      });
    };
    await refused({ orgId: '../etc' }, 'orgId', /letters, digits/);
    await refused({ orgId: '.hidden' }, 'orgId', /not starting with a dot/);
    await refused({ orgId: 'acme', workspaceId: 'a/b' }, 'workspaceId', /letters, digits/);
    await refused({ workspaceId: 'ws-1' }, 'orgId', /give its orgId/);
    await refused({ delay: -1 }, 'delay', /At least 0/);
    await refused({ delay: 1.5 }, 'delay', /whole number/);
    await refused({ delay: 'soon' }, 'delay', /number/);
    await refused({ delay: 86_401 }, 'delay', /At most 86,400 seconds/);
    await refused({ delay: 1_441, delayUnit: 'minutes' }, 'delay', /At most 1,440 minutes/);
    await refused({ delayUnit: 'hours' }, 'delayUnit', /./);
    await refused({ priority: 'URGENT' }, 'priority', /./);
    await expect(add(ops, { extra: 1 } as Partial<AddJobRequest>)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await allJobs(bullpen)).toBe(before);
  });

  it('refuses a queue the table lacks, and a type without a handler in this build', async () => {
    const bullpen = await server.readyBullpen({ handledTypes: ['notify'] });
    const ops = new JobOperations(bullpen);
    await expect(add(ops, { queue: 'no-such-queue' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(add(ops, {})).rejects.toMatchObject({ code: 'NO_HANDLER', message: expect.stringMatching(/no handler in this build/) });
    expect(await bullpen.queues.get('tidy').count()).toBe(0);
    expect(addJobDefaults(bullpen.jobs, 'tidy', bullpen.dispatcher.handles('tidy'))).toEqual({
      payload: JSON.stringify({ maxAgeMs: 86_400_000, batchSize: 500 }, null, 2),
      priority: 'LOW',
      addable: false,
      destructive: false,
    });
  });

  it('starts the form from the schema’s defaults when an empty payload passes, else from {}', async () => {
    const bullpen = server.bullpen();
    expect(JSON.parse(addJobDefaults(bullpen.jobs, 'tidy', true).payload)).toEqual({ maxAgeMs: 86_400_000, batchSize: 500 });
    expect(addJobDefaults(bullpen.jobs, 'tidy', true).priority).toBe('LOW');
    expect(addJobDefaults(bullpen.jobs, 'notify', true)).toEqual({
      payload: '{}',
      priority: 'HIGH',
      addable: true,
      destructive: false,
    });
    // The form asks for the typed org id where the job table marks the type destructive.
    expect(addJobDefaults(bullpen.jobs, 'erase', true).destructive).toBe(true);
  });
});
