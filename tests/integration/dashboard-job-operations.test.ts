import { Job, UnrecoverableError, Worker } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { deadLetterId } from '@/lib/dlq/entry';
import { PRIORITY } from '@/lib/jobs/priority';
import { foreignQueue } from '../helpers/foreign-queue';
import { useTestRedis } from '../helpers/use-test-redis';
import { refusal } from '../helpers/refusal';

/**
 * dashboard/jobs/job-operations.ts one rule at a time, beside dashboard-operations.test.ts's
 * scenario: what each refusal says and carries, what a retry gives back when BullMQ fails
 * it, what a copy keeps, and what each operation returns.
 */
const server = useTestRedis();
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of open.splice(0).reverse()) await close();
});

const HOOK = { webhookId: 'w1', event: 'order.created', payload: {} };

/** Takes the next job of `type` as a worker would (it is then active, locked by `token`). */
async function take(b: Bullpen, type: string, token: string): Promise<Job> {
  const worker = new Worker(type, null, { connection: b.workerConnection(), prefix: b.keys.queuePrefix(type), autorun: false });
  open.push(() => worker.close());
  const job = await worker.getNextJob(token);
  if (!job) throw new Error(`no ${type} job to take`);
  return job;
}

/** A notify job failed for good, with its pending dead letter. */
async function failedWithDeadLetter(b: Bullpen): Promise<string> {
  const { jobId } = await b.dispatcher.dispatch('notify', HOOK, { tenant: { orgId: 'org-1' } });
  const job = await take(b, 'notify', 't-fail');
  await job.moveToFailed(new UnrecoverableError('HTTP 503'), 't-fail', false);
  await b.dlq.record({
    queue: 'notify',
    jobId,
    jobType: 'notify',
    jobData: job.data,
    error: { message: 'HTTP 503', errorClass: 'server' },
    attempts: 1,
    failedAt: Date.now(),
    source: 'runtime',
  });
  return jobId;
}

describe('JobOperations', () => {
  it('names the job it cannot find and the queue it looked in, for every operation', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const missing = { code: 'NOT_FOUND', message: 'No job nope in tidy', details: { queue: 'tidy', jobId: 'nope' } };
    expect(await refusal(ops.retry('tidy', 'nope', 'ops'))).toMatchObject(missing);
    expect(await refusal(ops.promote('tidy', 'nope'))).toMatchObject(missing);
    expect(await refusal(ops.duplicate('tidy', 'nope'))).toMatchObject(missing);
    expect(await refusal(ops.remove('tidy', 'nope'))).toMatchObject(missing);
  });

  it('says which state a job is in when it cannot be retried or promoted, and changes nothing', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const { jobId: later } = await b.dispatcher.dispatch('tidy', {}, { delayMs: 60_000 });
    expect(await refusal(ops.retry('tidy', later, 'ops'))).toMatchObject({
      code: 'CONFLICT',
      message: `Job ${later} is delayed; only failed or completed jobs can be retried`,
      details: { state: 'delayed' },
    });
    const { jobId: now } = await b.dispatcher.dispatch('tidy', {});
    expect(await refusal(ops.promote('tidy', now))).toMatchObject({
      code: 'CONFLICT',
      message: `Job ${now} is prioritized; only delayed jobs can be promoted`,
      details: { state: 'prioritized' },
    });
    expect(await b.queues.get('tidy').getJobState(later)).toBe('delayed');
    expect(await ops.promote('tidy', later)).toEqual({ jobId: later });
  });

  it('runs a completed job again with fresh attempts, and no dead letter is claimed', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const { jobId } = await b.dispatcher.dispatch('tidy', {});
    const job = await take(b, 'tidy', 't-done');
    await job.moveToCompleted('done', 't-done', false);
    const claim = vi.spyOn(b.dlq, 'claimQueueRetry');
    expect(await ops.retry('tidy', jobId, 'ops')).toEqual({ jobId, from: 'completed' });
    expect(claim).not.toHaveBeenCalled();
    const again = (await b.queues.get('tidy').getJob(jobId))!;
    expect(await again.getState()).toBe('prioritized');
    expect(again.attemptsMade).toBe(0);
  });

  it('a refused retry names the dead letter and its status; one BullMQ fails gives its claim back', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const discarded = await failedWithDeadLetter(b);
    await b.dlq.discard(deadLetterId('notify', discarded), 'dora');
    const refused = await refusal(ops.retry('notify', discarded, 'ops'));
    expect(refused).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(new RegExp(`^Job ${discarded} was not retried: .*discarded`)),
      details: { status: 'discarded', deadLetterId: deadLetterId('notify', discarded) },
    });

    const failing = await failedWithDeadLetter(b);
    vi.spyOn(Job.prototype, 'retry').mockRejectedValueOnce(new Error('moved meanwhile'));
    // BullMQ's own error goes up as it is; the action logs it and answers INTERNAL (docs/dashboard-conventions.md).
    await expect(ops.retry('notify', failing, 'ops')).rejects.toThrow(/^moved meanwhile$/);
    // The claim is given back: the letter is pending again, with no replay recorded, and the job still failed.
    expect(await b.dlq.get(deadLetterId('notify', failing))).toMatchObject({ status: 'pending', replays: [] });
    expect(await b.queues.get('notify').getJobState(failing)).toBe('failed');
    expect(await ops.retry('notify', failing, 'ops')).toEqual({
      jobId: failing,
      from: 'failed',
      deadLetterId: deadLetterId('notify', failing),
    });
  });

  it('a copy keeps the tenant and priority it had, or has none; a job without an envelope is not copied', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const queue = b.queues.get('notify');
    const { jobId: urgent } = await b.dispatcher.dispatch('notify', HOOK, {
      tenant: { orgId: 'org-1', workspaceId: 'ws-1' },
      priority: 'CRITICAL',
    });
    const copy = await ops.duplicate('notify', urgent);
    expect(copy).toEqual({ jobId: expect.any(String), sourceId: urgent, edited: false });
    const copied = (await queue.getJob(copy.jobId))!;
    expect(copied.data.tenant).toEqual({ orgId: 'org-1', workspaceId: 'ws-1' });
    expect(copied.opts.priority).toBe(PRIORITY.CRITICAL);

    const { jobId: plain } = await b.dispatcher.dispatch('tidy', {});
    const plainCopy = (await b.queues.get('tidy').getJob((await ops.duplicate('tidy', plain)).jobId))!;
    expect(plainCopy.data).not.toHaveProperty('tenant');
    // The type's own priority (tidy's LOW) again, not none.
    expect(plainCopy.opts.priority).toBe(PRIORITY.LOW);

    const bare = await queue.add('notify', { webhookId: 'w1' });
    const before = await queue.count();
    expect(await refusal(ops.duplicate('notify', bare.id!))).toMatchObject({
      code: 'VALIDATION',
      message: `Job ${bare.id} was not enqueued by Bullpen (no envelope); it cannot be duplicated`,
    });
    expect(await queue.count()).toBe(before);
  });

  it('"Add a job" names each refused field in its message, a payload that is not JSON, and a type it cannot run', async () => {
    const b = await server.readyBullpen({ handledTypes: ['notify'] });
    const ops = new JobOperations(b);
    const form = await refusal(ops.add({ queue: 'notify', payload: '{}', delay: -1, priority: 'URGENT' }, { role: 'operator' }));
    expect(form).toMatchObject({
      code: 'VALIDATION',
      message: 'The job was not added: priority: Invalid option: expected one of "CRITICAL"|"HIGH"|"MEDIUM"|"LOW"; delay: At least 0',
      details: { fieldErrors: { delay: ['At least 0'], priority: [expect.stringMatching(/^Invalid option/)] } },
    });
    // A rule of the whole form (no field) is said without a field's name before it.
    expect((await refusal(ops.add({ queue: 'notify', payload: '{}', extra: 1 }, { role: 'operator' }))).message).toBe(
      'The job was not added: Unrecognized key: "extra"',
    );
    expect(await refusal(ops.add({ queue: 'notify', payload: '{"a": ' }, { role: 'operator' }))).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/^The payload is not valid JSON: line 1, column \d+: /),
    });
    expect(await refusal(ops.add({ queue: 'tidy', payload: '{}' }, { role: 'operator' }))).toMatchObject({
      code: 'NO_HANDLER',
      message: 'tidy has no handler in this build, so a job of it would never run; nothing was added',
      details: { type: 'tidy' },
    });
    expect(await b.queues.get('notify').count()).toBe(0);
  });

  it('adds to a foreign queue only: its form, its JSON and an own queue are refused with the reason', async () => {
    const other = 'jobops-other';
    const b = await server.readyBullpen({ env: { BULLPEN_QUEUE_PREFIXES: other } });
    const { queue: emails } = foreignQueue(server.redis.port, other, 'emails', open);
    await emails.add('seed', {});
    const ops = new JobOperations(b);
    const ref = `${other}~emails`;
    expect(await refusal(ops.addRaw({ queue: ref, name: 'has space', data: '{}' }))).toMatchObject({
      code: 'VALIDATION',
      message: 'The job was not added: name: No spaces',
    });
    expect(await refusal(ops.addRaw({ queue: ref, name: 'x', data: '[' }))).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/^The data is not valid JSON: line 1/),
    });
    expect(await refusal(ops.addRaw({ queue: 'tidy', name: 'x', data: '{}' }))).toMatchObject({
      code: 'VALIDATION',
      message: `tidy is one of this dashboard's job types: add its jobs with their schema ("Add a job")`,
    });
    // Without options, none is set: BullMQ's own defaults.
    const added = await ops.addRaw({ queue: ref, name: 'welcome', data: '{"to": "a@example.com"}' });
    expect(added).toEqual({ jobId: expect.any(String), queue: ref, name: 'welcome' });
    const job = (await emails.getJob(added.jobId))!;
    expect(job.opts.delay ?? 0).toBe(0);
    expect(job.opts.attempts || 1).toBe(1);
    expect(job.opts.priority ?? 0).toBe(0);
    expect(await job.getState()).toBe('waiting');
  });

  it('copies a foreign job with its name and data, or the edit, and its retry options, and runs it again as it is', async () => {
    const other = 'jobops-dup';
    const b = await server.readyBullpen({ env: { BULLPEN_QUEUE_PREFIXES: other } });
    const { queue: emails } = foreignQueue(server.redis.port, other, 'emails', open);
    const ops = new JobOperations(b);
    const ref = `${other}~emails`;
    const src = await emails.add('welcome', { to: 'a@example.com' }, { attempts: 4, backoff: { type: 'fixed', delay: 50 }, priority: 7 });
    const copy = await ops.duplicate(ref, src.id!);
    expect(copy).toEqual({ jobId: expect.any(String), sourceId: src.id, edited: false });
    const copied = (await emails.getJob(copy.jobId))!;
    expect([copied.name, copied.data]).toEqual(['welcome', { to: 'a@example.com' }]);
    expect(copied.opts).toMatchObject({ attempts: 4, backoff: { type: 'fixed', delay: 50 }, priority: 7 });
    const edited = await ops.duplicate(ref, src.id!, { payload: { to: 'b@example.com' } });
    expect(edited.edited).toBe(true);
    expect((await emails.getJob(edited.jobId))!.data).toEqual({ to: 'b@example.com' });
    const bare = await emails.add('plain', { n: 1 });
    const bareCopy = (await emails.getJob((await ops.duplicate(ref, bare.id!)).jobId))!;
    expect(bareCopy.opts.backoff).toBeUndefined();
    expect(bareCopy.opts.attempts || 1).toBe(1);
    expect(bareCopy.opts.priority ?? 0).toBe(0);
  });

  it('removes a job that is not running, saying which state it was in; refuses a running one and one BullMQ will not remove', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    const { jobId: delayed } = await b.dispatcher.dispatch('tidy', {}, { delayMs: 60_000 });
    expect(await ops.remove('tidy', delayed)).toEqual({ jobId: delayed, state: 'delayed' });

    const { jobId: running } = await b.dispatcher.dispatch('notify', HOOK);
    await take(b, 'notify', 't-run');
    expect(await refusal(ops.remove('notify', running))).toMatchObject({
      code: 'CONFLICT',
      message: `Job ${running} is running; wait for it to finish before removing it`,
    });
    expect(await b.queues.get('notify').getJobState(running)).toBe('active');

    const { jobId: stuck } = await b.dispatcher.dispatch('tidy', {});
    vi.spyOn(Job.prototype, 'remove').mockRejectedValueOnce(new Error('job is locked'));
    expect(await refusal(ops.remove('tidy', stuck))).toMatchObject({
      code: 'CONFLICT',
      message: `Job ${stuck} could not be removed: job is locked`,
    });
    expect(await b.queues.get('tidy').getJobState(stuck)).toBe('prioritized');
  });
});
