import { type ConnectionOptions, type Job, UnrecoverableError, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { ATTEMPT_RECORD_FIELD, readAttemptRecord } from '@/lib/runtime/attempt-record';
import { foreignQueue } from '../helpers/foreign-queue';
import { useTestRedis } from '../helpers/use-test-redis';
import { refusal } from '../helpers/refusal';

/**
 * What dashboard/jobs/job-operations.ts leaves behind, beside dashboard-job-operations.test.ts's
 * rules: the BullMQ fields a retry resets on each path, the attempt record a re-run keeps (and
 * never writes into another service's queue), and the order of an added job's checks.
 */
const server = useTestRedis();
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** Takes the next job of a queue as a worker would (it is then active, locked by `token`). */
async function take(connection: ConnectionOptions, name: string, prefix: string, token: string): Promise<Job> {
  const worker = new Worker(name, null, { connection, prefix, autorun: false });
  open.push(() => worker.close());
  const job = await worker.getNextJob(token);
  if (!job) throw new Error(`no ${name} job to take`);
  return job;
}

/** BullMQ's attempt counters as its hash holds them (`atm`, `ats`; absent is 0). */
async function counters(b: Bullpen, key: string): Promise<{ made: number; started: number }> {
  const [made, started] = await b.redis.hmget(key, 'atm', 'ats');
  return { made: Number(made ?? 0), started: Number(started ?? 0) };
}

describe('JobOperations: what a retry and an added job leave', () => {
  it('a retried failure starts its attempts over: made and started both at 0', async () => {
    const b = await server.readyBullpen();
    const { jobId } = await b.dispatcher.dispatch('notify', { webhookId: 'w1', event: 'order.created', payload: {} });
    const job = await take(b.workerConnection(), 'notify', b.keys.queuePrefix('notify'), 't-fail');
    await job.moveToFailed(new UnrecoverableError('HTTP 503'), 't-fail', false);
    const key = b.queues.get('notify').toKey(jobId);
    expect(await counters(b, key)).toEqual({ made: 1, started: 1 });
    expect(await new JobOperations(b).retry('notify', jobId, 'ops')).toMatchObject({ jobId, from: 'failed' });
    expect(await counters(b, key)).toEqual({ made: 0, started: 0 });
  });

  it('a re-run completed job keeps the run it completed in its attempt record, with its counters at 0', async () => {
    const b = await server.readyBullpen();
    const { jobId } = await b.dispatcher.dispatch('tidy', {});
    const job = await take(b.workerConnection(), 'tidy', b.keys.queuePrefix('tidy'), 't-done');
    await job.moveToCompleted('done', 't-done', false);
    const key = b.queues.get('tidy').toKey(jobId);
    const done = (await b.queues.get('tidy').getJob(jobId))!;
    expect((await readAttemptRecord(b.redis, key)).entries).toEqual([]);
    await new JobOperations(b).retry('tidy', jobId, 'ops');
    // The retry cleared processedOn and finishedOn; the record is where that run is read from now.
    expect(await b.redis.hmget(key, 'processedOn', 'finishedOn')).toEqual([null, null]);
    expect((await readAttemptRecord(b.redis, key)).entries).toEqual([
      expect.objectContaining({ outcome: 'completed', start: done.processedOn, end: done.finishedOn }),
    ]);
    expect(await counters(b, key)).toEqual({ made: 0, started: 0 });
  });

  it('re-runs a foreign queue’s completed job without writing a field of its own into that hash', async () => {
    const other = 'jobops-effects';
    const b = await server.readyBullpen({ env: { BULLPEN_QUEUE_PREFIXES: other } });
    const { connection, queue: emails } = foreignQueue(server.redis.port, other, 'emails', open);
    const src = await emails.add('welcome', { to: 'a@example.com' });
    const job = await take(connection, 'emails', other, 't-done');
    await job.moveToCompleted('sent', 't-done', false);
    expect(await new JobOperations(b).retry(`${other}~emails`, src.id!, 'ops')).toEqual({ jobId: src.id, from: 'completed' });
    expect(await emails.getJobState(src.id!)).toBe('waiting');
    expect(await connection.hexists(emails.toKey(src.id!), ATTEMPT_RECORD_FIELD)).toBe(0);
    expect(await counters(b, emails.toKey(src.id!))).toEqual({ made: 0, started: 0 });
  });

  it('names every refused field of a raw job in one message, in the form’s order', async () => {
    const other = 'jobops-raw';
    const b = await server.readyBullpen({ env: { BULLPEN_QUEUE_PREFIXES: other } });
    const { queue: emails } = foreignQueue(server.redis.port, other, 'emails', open);
    await emails.add('seed', {});
    const refused = await refusal(new JobOperations(b).addRaw({ queue: `${other}~emails`, name: 'has space', data: '{}', attempts: '0' }));
    expect(refused.message).toBe('The job was not added: name: No spaces; attempts: At least 1');
    expect(await emails.count()).toBe(1);
  });

  it('refuses an invalid payload of a destructive type by its fields, before asking for the confirmation it would need', async () => {
    const b = await server.readyBullpen();
    const ops = new JobOperations(b);
    // The test table's destructive `erase` without its orgId: the payload says which field is
    // missing, not "type <org> to confirm" (there is no org to type).
    const refused = await refusal(ops.add({ queue: 'erase', payload: '{}' }, { role: 'admin' }));
    expect(refused).toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/^Invalid erase payload: /) });
    expect(refused.details).toMatchObject({ issues: [expect.objectContaining({ path: ['orgId'] })] });
    expect(await b.queues.get('erase').count()).toBe(0);
  });
});
