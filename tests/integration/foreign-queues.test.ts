import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { readForeignQueues } from '@/dashboard/queues/foreign-queues';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { discoverQueues, forgetDiscovery } from '@/dashboard/queues/queue-discovery';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { resolveQueue } from '@/dashboard/queues/queue-ref';
import { useTestRedis } from '../helpers/use-test-redis';

/** Queues another service made with plain `bullmq`, seen and operated through the dashboard's read models. */
describe('foreign BullMQ queues', () => {
  const server = useTestRedis();
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  async function setup(n: number) {
    const own = `fq${n}`;
    const other = `other${n}`;
    const bullpen = await server.readyBullpen({ prefix: own, env: { BULLPEN_QUEUE_PREFIXES: `${other},${own}` } });
    const connection = new IORedis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: null });
    open.push(async () => connection.disconnect());
    const plain = (name: string, prefix: string) => {
      const q = new Queue(name, { connection, prefix });
      open.push(() => q.close());
      return q;
    };
    return { bullpen, own, other, connection, plain };
  }

  it('finds the queues under the configured prefixes, marks them foreign, and counts their jobs per state', async () => {
    const { bullpen, own, other, plain } = await setup(1);
    const emails = plain('emails', other);
    await emails.add('welcome', { to: 'a@example.com' });
    await emails.add('welcome', { to: 'b@example.com' });
    await emails.add('digest', { to: 'c@example.com' }, { delay: 3_600_000 });
    // A queue under Bullpen's own layout whose type the table lacks (an old type, say): foreign too.
    await plain('old-type', `${own}:{old-type}`).add('old-type', { x: 1 });
    // One of the table's own queues: not foreign.
    await bullpen.dispatcher.dispatch('tidy', {});
    // Decoys: a meta key that is no hash, and a key whose queue part holds a colon.
    await bullpen.redis.set(`${other}:not-a-queue:meta`, 'x');
    await bullpen.redis.hset(`${other}:a:b:meta`, 'version', '1');

    const discovery = await discoverQueues(bullpen);
    expect(discovery.queues.find((q) => q.name === 'tidy')).toMatchObject({ own: true, ref: 'tidy' });
    const foreign = await readForeignQueues(bullpen);
    expect(foreign.prefixes).toEqual([other, own]);
    expect(foreign.queues.map((q) => q.ref).sort()).toEqual([`${other}~emails`, `${own}:{old-type}~old-type`].sort());
    const row = foreign.queues.find((q) => q.name === 'emails')!;
    expect(row.counts).toMatchObject({ waiting: 2, delayed: 1, active: 0, failed: 0 });
    expect(row.paused).toBe(false);

    const page = await readQueuePage(bullpen, `${other}~emails`, parseQueueFilters({ state: 'waiting' }));
    expect(page.queue).toMatchObject({ name: `${other}~emails`, queueName: 'emails', prefix: other, foreign: true, group: 'foreign' });
    expect(page.total).toBe(2);
    expect(page.jobs.map((j) => j.name)).toEqual(['welcome', 'welcome']);
    const jobPage = await readJobPage(bullpen, `${other}~emails`, page.jobs[0].id);
    // The data as it is: no envelope read into it, no dead letter looked up.
    expect(jobPage!.job.payload.value).toEqual({ to: 'b@example.com' });
    expect(jobPage!.job.enveloped).toBe(false);
    expect(jobPage!.deadLetter).toBeUndefined();
  });

  it('never resolves a reference outside the configured prefixes, or a queue that does not exist', async () => {
    const { bullpen, other, plain } = await setup(2);
    await plain('emails', other).add('x', {});
    await plain('emails', 'unlisted').add('x', {});
    expect((await resolveQueue(bullpen, `${other}~emails`)).foreign).toBe(true);
    for (const ref of ['unlisted~emails', `${other}~missing`, `${other}~a:b`, `~emails`, 'no-such-type', `${other}~`, 'x'.repeat(300)]) {
      await expect(resolveQueue(bullpen, ref), ref).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    await expect(readQueuePage(bullpen, 'unlisted~emails', parseQueueFilters({}))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('pauses, promotes, retries and cleans a foreign queue with the generic operations', async () => {
    const { bullpen, other, connection, plain } = await setup(3);
    const ref = `${other}~emails`;
    const emails = plain('emails', other);
    const delayed = await emails.add('later', { n: 1 }, { delay: 3_600_000 });
    const bad = await emails.add('bad', { fail: true }, { attempts: 1 });
    const worker = new Worker(
      'emails',
      async (job) => {
        if (job.data.fail) throw new Error('refused by the mail server');
        return 'sent';
      },
      { connection, prefix: other },
    );
    open.push(() => worker.close());
    await expect.poll(() => bad.getState(), { timeout: 10_000 }).toBe('failed');
    await worker.pause();

    const queues = new QueueOperations(bullpen);
    const jobs = new JobOperations(bullpen);
    await queues.pause(ref);
    expect(await emails.isPaused()).toBe(true);
    await queues.resume(ref);
    expect(await emails.isPaused()).toBe(false);

    await jobs.promote(ref, delayed.id!);
    expect(await emails.getJobState(delayed.id!)).toBe('waiting');

    // No dead letters here: a foreign job is retried as it is, and the preview skips nothing.
    expect(await queues.retryPreview(ref)).toMatchObject({ failed: 1, scanned: 1, willRetry: 1, willSkip: { replayed: 0, discarded: 0 } });
    expect(await jobs.retry(ref, bad.id!, 'olivia')).toEqual({ jobId: bad.id, from: 'failed' });
    expect(await emails.getJobState(bad.id!)).toBe('waiting');

    const cleaned = await queues.clean(ref, 'waiting', 0);
    expect(cleaned.succeeded).toBe(2);
    expect(await emails.getJobCounts('waiting', 'failed', 'delayed')).toEqual({ waiting: 0, failed: 0, delayed: 0 });
    forgetDiscovery(bullpen);
  });

  it('adds a job to a foreign queue as raw JSON with BullMQ options, and refuses what it should without adding anything', async () => {
    const { bullpen, other, plain } = await setup(4);
    const emails = plain('emails', other);
    await emails.add('seed', {});
    const ref = `${other}~emails`;
    const jobs = new JobOperations(bullpen);

    const added = await jobs.addRaw({
      queue: ref,
      name: 'welcome',
      data: '{"to": "x@example.com"}',
      delaySeconds: '30',
      priority: '2',
      attempts: '4',
    });
    expect(added).toMatchObject({ queue: ref, name: 'welcome' });
    const job = (await emails.getJob(added.jobId))!;
    expect(job.data).toEqual({ to: 'x@example.com' });
    expect(job.opts).toMatchObject({ delay: 30_000, priority: 2, attempts: 4 });
    expect(await job.getState()).toBe('delayed');

    const before = await emails.count();
    await expect(jobs.addRaw({ queue: ref, name: 'welcome', data: '{"to": ' })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { data: [expect.stringMatching(/line 1/)] } },
    });
    await expect(jobs.addRaw({ queue: ref, name: 'has space', data: '{}', priority: '3000000' })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { fieldErrors: { name: ['No spaces'], priority: [expect.stringMatching(/At most/)] } },
    });
    // An own queue takes its jobs through its schema; an unconfigured prefix is no queue at all.
    await expect(jobs.addRaw({ queue: 'tidy', name: 'tidy', data: '{}' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(jobs.addRaw({ queue: 'unlisted~emails', name: 'x', data: '{}' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await emails.count()).toBe(before);
  });

  /** Every key under `prefix` with its type and contents, to show a read wrote nothing. */
  async function keysUnder(redis: IORedis, prefix: string): Promise<Record<string, string>> {
    const keys = (await redis.keys(`${prefix}:*`)).sort();
    const out: Record<string, string> = {};
    for (const k of keys) out[k] = (await redis.dumpBuffer(k))?.toString('base64') ?? '';
    return out;
  }

  it("resolves only BullMQ's meta hash, never a runtime tag of Bullpen's, and a read writes nothing", async () => {
    const { bullpen, own, other, connection } = await setup(5);
    const jobs = new JobOperations(bullpen);
    // Keys shaped like queues' meta that are not BullMQ's: another application's hash, a string, and
    // hashes that look like BullMQ's inside the runtime's own tags ({idem} is the idempotency store's).
    await connection.hset(`${other}:sessionstore:meta`, { sid: 's1', user: 'ann' });
    await connection.set(`${other}:str:meta`, 'x');
    await connection.hset(`${own}:{idem}:meta`, { 'opts.maxLenEvents': '10000', version: 'bullmq:6.7.0' });
    await connection.hset(`${own}:{idem}:idem:meta`, { 'opts.maxLenEvents': '10000', version: 'bullmq:6.7.0' });
    // Another service's queue whose producers never let BullMQ write its meta on start: only a job added.
    const theirs = new Queue('mail', { connection, prefix: other, skipMetasUpdate: true });
    open.push(() => theirs.close());
    await theirs.add('welcome', { to: 'a@example.com' });
    expect(await connection.hgetall(`${other}:mail:meta`)).toEqual({ 'opts.maxLenEvents': '10000' });

    for (const ref of [`${other}~sessionstore`, `${other}~str`]) {
      await expect(resolveQueue(bullpen, ref), ref).rejects.toMatchObject({ code: 'VALIDATION', status: 400 });
      await expect(readQueuePage(bullpen, ref, parseQueueFilters({})), ref).rejects.toMatchObject({ status: 400 });
    }
    for (const ref of [`${own}~{idem}`, `${own}:{idem}~idem`]) {
      await expect(resolveQueue(bullpen, ref), ref).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(jobs.addRaw({ queue: ref, name: 'x', data: '{}' }), ref).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(await connection.keys(`${own}:{idem}:*`)).toHaveLength(2);

    // The viewer's reads of the real one: the list, a page, a job. Not one byte of the other service's keys changes.
    const before = await keysUnder(connection, other);
    const foreign = await readForeignQueues(bullpen);
    expect(foreign.queues.map((q) => q.ref)).toEqual([`${other}~mail`]);
    const page = await readQueuePage(bullpen, `${other}~mail`, parseQueueFilters({ state: 'waiting' }));
    expect(page.total).toBe(1);
    await readJobPage(bullpen, `${other}~mail`, page.jobs[0].id);
    expect(await keysUnder(connection, other)).toEqual(before);
    forgetDiscovery(bullpen);
  });
});
