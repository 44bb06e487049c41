import { useTestRedis } from '../helpers/use-test-redis';
import { UnrecoverableError, Worker } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { DeadLetterBulk, type EntryStore } from '@/lib/dlq/bulk-operations';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { MAX_DLQ_BULK } from '@/lib/dlq/dlq-limits';
import { IndexPager } from '@/lib/dlq/index-pager';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import type { Tenant } from '@/lib/jobs/tenant';
import { capturingLogger } from '../helpers/capturing-logger';
import { refusal } from '../helpers/refusal';

/**
 * lib/dlq/bulk-operations.ts on its own, against the test Redis: the real store's
 * records, indexes and Lua scripts, with the single-entry operations it repeats
 * (`EntryStore`) passed through, or made to fail, to move on, or to change an entry,
 * where the test says so. dlq-store.test.ts keeps the scenarios through the store.
 */
const T0 = 1_700_000_000_000;
const DAY = 86_400_000;
let seq = 0;

function input(over: { type?: 'notify' | 'tidy'; tenant?: Tenant; jobId?: string; queue?: string } = {}): DeadLetterInput {
  seq++;
  const jobType = over.type ?? 'notify';
  const payload =
    jobType === 'notify' ? { webhookId: 'wh-1', event: 'order.created', payload: { n: seq } } : { maxAgeMs: 1_000, batchSize: 10 };
  const envelope: JobEnvelope = { payload, tenant: over.tenant, requestId: `req-${seq}`, dispatchedAt: T0 };
  return {
    queue: over.queue ?? jobType,
    jobId: over.jobId ?? `bulk-${seq}`,
    jobType,
    jobData: envelope,
    error: { message: 'boom', errorClass: 'server' },
    attempts: 3,
    // Each later than the one before: a walk (newest first) meets them in reverse order.
    failedAt: T0 + seq * 1_000,
    tenant: over.tenant,
    source: 'runtime',
  };
}

/** Holds the queue's adds until `release()`, so a replay stays `replaying` for the test to act on. */
function holdAdds(queue: ReturnType<Bullpen['queues']['get']>) {
  const original = queue.add.bind(queue);
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  queue.add = (async (...args: Parameters<typeof queue.add>) => {
    await held;
    return original(...args);
  }) as typeof queue.add;
  return {
    release: () => {
      release();
      queue.add = original;
    },
  };
}

/** Jobs of `type` failed for good by BullMQ's own scripts (moveToActive, moveToFailed), as a worker fails them. */
async function failedJobs(b: Bullpen, type: 'notify' | 'tidy', n: number): Promise<string[]> {
  const queue = b.queues.get(type);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await queue.add(type, { n: i }, { removeOnFail: false })).id!);
  const worker = new Worker(type, null, { connection: b.workerConnection(), prefix: b.keys.queuePrefix(type), autorun: false });
  try {
    for (let taken = 0; taken < n; taken++) {
      const job = await worker.getNextJob('bulk-test');
      if (!job) throw new Error(`only ${taken} of ${n} jobs to take`);
      await job.moveToFailed(new UnrecoverableError('HTTP 503'), 'bulk-test', false);
    }
  } finally {
    await worker.close();
  }
  return ids;
}

describe('DeadLetterBulk', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let log: ReturnType<typeof capturingLogger>;
  beforeEach(async () => {
    bullpen = await server.readyBullpen();
    log = capturingLogger();
  });

  /** The bulk operations over the real store, with some of its single-entry operations replaced. */
  function bulk(over: Partial<EntryStore> = {}): DeadLetterBulk {
    const dlq = bullpen.dlq;
    const store: EntryStore = {
      replayAs: over.replayAs ?? ((id, o, allowed) => dlq.replayAs(id, o, allowed)),
      discard: over.discard ?? ((id, by) => dlq.discard(id, by)),
      getMany: over.getMany ?? ((ids) => dlq.getMany(ids)),
    };
    return new DeadLetterBulk({
      store,
      pager: new IndexPager(bullpen.redis, dlq.keys),
      redis: bullpen.redis,
      keys: dlq.keys,
      queues: bullpen.queues,
      logger: log.logger,
    });
  }

  /** Records `n` entries; returned newest first, the order a walk meets them. */
  async function record(n: number, over: Parameters<typeof input>[0] = {}): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await bullpen.dlq.record(input(over))).id);
    return ids.reverse();
  }

  it('counts a failure apart from a skip, keeps the first 20 failures with their ids and words, and reports each batch', async () => {
    const ids = await record(25, { type: 'tidy' });
    const progress: unknown[] = [];
    const result = await bulk({
      replayAs: async (id) => {
        const k = ids.indexOf(id);
        if (k === 0) throw new AppError('CONFLICT', 'replayed meanwhile');
        if (k === 1) throw new AppError('NOT_FOUND', 'gone meanwhile');
        if (k === 2) throw new AppError('VALIDATION', `refused ${id}`);
        if (k === 3) throw 'a bare string';
        // Whatever a collaborator rejects with is reported, never a crash of the whole run.
        if (k === 4) throw undefined;
        throw new Error(`broken ${id}`);
      },
    }).replayMany({ type: 'tidy' }, { by: 'ops', batchSize: 10, onProgress: (p) => progress.push(p) });
    const words = (id: string, k: number) =>
      k === 2 ? `refused ${id}` : k === 3 ? 'a bare string' : k === 4 ? 'undefined' : `broken ${id}`;
    expect(result).toEqual({
      processed: 25,
      succeeded: 0,
      skipped: 2,
      refused: 0,
      failed: 23,
      errors: ids.slice(2, 22).map((id, i) => ({ id, message: words(id, i + 2) })),
    });
    expect(progress).toEqual([
      { processed: 10, succeeded: 0, skipped: 2, failed: 8 },
      { processed: 20, succeeded: 0, skipped: 2, failed: 18 },
      { processed: 25, succeeded: 0, skipped: 2, failed: 23 },
    ]);
    expect((await bullpen.dlq.counts()).pending).toBe(25);
    const done = log.lines.filter((l) => l.msg === 'bulk replay finished');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      level: 'info',
      filter: { type: 'tidy', status: 'pending' },
      by: 'ops',
      processed: 25,
      succeeded: 0,
      skipped: 2,
      refused: 0,
      failed: 23,
    });
    expect(done[0]).not.toHaveProperty('errors');
  });

  it('skips a letter gone between the walk and the read, and one that no longer matches the filter', async () => {
    const ids = await record(4);
    const cutoff = T0 + seq * 1_000;
    const calls: string[] = [];
    const result = await bulk({
      // ids[0] is deleted meanwhile; ids[1] failed again (a replay of it), after the filter's `to`.
      getMany: async (want) => {
        const entries = await bullpen.dlq.getMany(want.filter((id) => id !== ids[0]));
        return entries.map((e) => (e.id === ids[1] ? { ...e, failedAt: cutoff + 60_000 } : e));
      },
      replayAs: async (id, o, allowed) => {
        calls.push(id);
        return bullpen.dlq.replayAs(id, o, allowed);
      },
    }).replayMany({ to: cutoff }, { by: 'ops' });
    expect(result).toMatchObject({ processed: 4, succeeded: 2, skipped: 2, refused: 0, failed: 0 });
    expect(calls.sort()).toEqual([ids[2], ids[3]].sort());
    expect((await bullpen.dlq.get(ids[1]))?.status).toBe('pending');
  });

  it('replays a replayed letter again only if nobody replayed it since the read, and hands each replay on', async () => {
    const ids = await record(3);
    await bullpen.dlq.replay(ids[0], { by: 'first' });
    await bullpen.dlq.replay(ids[1], { by: 'first' });
    const asked: Array<{ id: string; expectedReplays?: number; allowed: string[] }> = [];
    const replayed: DeadLetterEntry[] = [];
    const spy = bulk({
      replayAs: async (id, o, allowed) => {
        asked.push({ id, expectedReplays: o.expectedReplays, allowed });
        return bullpen.dlq.replayAs(id, o, allowed);
      },
    });
    const again = await spy.replayMany({ status: 'replayed' }, { by: 'ops', onReplayed: (e) => replayed.push(e) });
    expect(again).toMatchObject({ processed: 2, succeeded: 2 });
    expect(asked.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [ids[0], ids[1]].sort().map((id) => ({ id, expectedReplays: 1, allowed: ['replayed'] })),
    );
    expect(replayed.map((e) => [e.id, e.replays.length, e.replays[1].by]).sort()).toEqual(
      [ids[0], ids[1]].sort().map((id) => [id, 2, 'ops']),
    );
    asked.length = 0;
    expect(await spy.replayMany({}, { by: 'ops' })).toMatchObject({ processed: 1, succeeded: 1 });
    expect(asked).toEqual([{ id: ids[2], expectedReplays: undefined, allowed: ['pending'] }]);
  });

  it('discards in bulk and says so in the log', async () => {
    const ids = await record(3, { tenant: { orgId: 'org-d' } });
    const result = await bulk().discardMany({ tenant: 'org-d' }, { by: 'dora', batchSize: 2 });
    expect(result).toEqual({ processed: 3, succeeded: 3, skipped: 0, refused: 0, failed: 0, errors: [] });
    for (const id of ids) expect((await bullpen.dlq.get(id))?.discardedBy).toBe('dora');
    const done = log.lines.filter((l) => l.msg === 'bulk discard finished');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      level: 'info',
      filter: { tenant: 'org-d', status: 'pending' },
      by: 'dora',
      processed: 3,
      succeeded: 3,
    });
    expect(done[0]).not.toHaveProperty('errors');
  });

  it('names what it refused: a status it cannot act on, the options, the filter, the tenant', async () => {
    const replaying = await refusal(bulk().replayMany({ status: 'discarded' }, { by: 'ops' }));
    expect(replaying).toMatchObject({
      code: 'VALIDATION',
      message: 'Only pending or replayed entries can be chosen to replay, not discarded',
      details: { status: 'discarded' },
    });
    const discarding = await refusal(bulk().discardMany({ status: 'replaying' }, { by: 'ops' }));
    expect(discarding.message).toBe('Only pending or replayed entries can be chosen to discard, not replaying');
    expect((await refusal(bulk().replayMany({}, { by: '' }))).message).toMatch(/^Invalid bulk options: /);
    expect((await refusal(bulk().discardMany({}, { by: 'ops', batchSize: 0 }))).message).toMatch(/^Invalid bulk options: /);
    expect((await refusal(bulk().discardMany({ status: 'lost' as never }, { by: 'ops' }))).message).toMatch(
      /^Invalid dead-letter filter: /,
    );
    expect((await refusal(bulk().purge({ status: 'lost' as never }, { by: 'ops' }, 0))).message).toMatch(/^Invalid dead-letter filter: /);
    expect((await refusal(bulk().purge({}, { by: 'ops', limit: 0 }, 0))).message).toMatch(/^Invalid purge options: /);
    expect((await refusal(bulk().purgeTenant({ orgId: '../x' }, { by: 'ops' }, 0))).message).toMatch(/^Invalid tenant: /);
    expect((await refusal(bulk().purgeTenant({ orgId: 'org-1' }, { by: '' }, 0))).message).toMatch(/^Invalid purge options: /);
    expect((await refusal(bulk().prune({ olderThanMs: -1 }))).message).toMatch(/^Invalid prune options: /);
    expect((await refusal(bulk().prune({ batchSize: 0 }))).message).toMatch(/^Invalid prune options: /);
    expect((await refusal(bulk().prune({ batchSize: 1_001 }))).message).toMatch(/^Invalid prune options: /);
  });

  it('takes a limit above the other bulk actions’ 10,000: a purge runs in the background, as far as it is asked', async () => {
    const ids = await record(2, { type: 'tidy' });
    expect(await bulk().purge({ type: 'tidy' }, { by: 'root', limit: MAX_DLQ_BULK + 1 }, 0)).toBe(2);
    expect(await bullpen.dlq.getMany(ids)).toEqual([]);
  });

  it('purges up to its limit across batches, reporting each, and leaves the rest', async () => {
    const ids = await record(7, { type: 'tidy' });
    const progress: unknown[] = [];
    const removed = await bulk().purge({ type: 'tidy' }, { by: 'root', batchSize: 3, limit: 5, onProgress: (p) => progress.push(p) }, 0);
    expect(removed).toBe(5);
    expect(progress).toEqual([
      { processed: 3, succeeded: 3, skipped: 0, failed: 0 },
      { processed: 5, succeeded: 5, skipped: 0, failed: 0 },
    ]);
    expect((await bullpen.dlq.getMany(ids)).map((e) => e.id)).toEqual(ids.slice(5));
    expect(log.lines.find((l) => l.msg === 'dead letters purged')).toMatchObject({
      level: 'warn',
      by: 'root',
      removed: 5,
      filter: { type: 'tidy' },
    });
  });

  it('purges every status but a replay in progress, skips a letter that no longer matches, and counts both', async () => {
    const ids = await record(5, { type: 'tidy' });
    await bullpen.dlq.replay(ids[1], { by: 'ops' });
    await bullpen.dlq.discard(ids[2], 'ops');
    const { release } = holdAdds(bullpen.queues.get('tidy'));
    const replaying = bullpen.dlq.replay(ids[3], { by: 'ops' });
    const cutoff = T0 + seq * 1_000;
    try {
      await expect.poll(async () => (await bullpen.dlq.get(ids[3]))?.status).toBe('replaying');
      const progress: unknown[] = [];
      const removed = await bulk({
        // ids[4] failed again after the filter's `to` between the walk and the read.
        getMany: async (want) => (await bullpen.dlq.getMany(want)).map((e) => (e.id === ids[4] ? { ...e, failedAt: cutoff + 1 } : e)),
      }).purge({ type: 'tidy', to: cutoff }, { by: 'root', onProgress: (p) => progress.push(p) }, Date.now());
      expect(removed).toBe(3);
      expect(progress).toEqual([{ processed: 5, succeeded: 3, skipped: 2, failed: 0 }]);
      expect((await bullpen.dlq.getMany(ids)).map((e) => [e.id, e.status])).toEqual([
        [ids[3], 'replaying'],
        [ids[4], 'pending'],
      ]);
    } finally {
      release();
    }
    await replaying;
  });

  it('a purge with a status removes that status only', async () => {
    const ids = await record(3, { type: 'tidy' });
    await bullpen.dlq.discard(ids[0], 'ops');
    expect(await bulk().purge({ status: 'discarded' }, { by: 'root' }, 0)).toBe(1);
    expect((await bullpen.dlq.getMany(ids)).map((e) => e.id)).toEqual(ids.slice(1));
  });

  it('removes a purged letter’s job that is still failed, and only such a job; a job it cannot read is logged and passed', async () => {
    const jobs = await failedJobs(bullpen, 'tidy', 3);
    const queue = bullpen.queues.get('tidy');
    for (const jobId of jobs.slice(0, 2)) await bullpen.dlq.record(input({ type: 'tidy', jobId }));
    // The second job was retried meanwhile: it waits (the type's priority), and the purge leaves it.
    await (await queue.getJob(jobs[1]))!.retry('failed');
    // A queue this build no longer has: its letter goes, and no queue is asked about the job.
    await bullpen.dlq.record(input({ type: 'tidy', queue: 'gone-queue', jobId: jobs[2] }));
    expect(await bulk().purge({ type: 'tidy' }, { by: 'root' }, 0)).toBe(3);
    expect(await queue.getJobState(jobs[0])).toBe('unknown');
    expect(await queue.getJobState(jobs[1])).toBe('prioritized');
    expect(await queue.getJobState(jobs[2])).toBe('failed');
    expect(log.lines.filter((l) => l.msg === 'could not remove a purged dead letter’s failed job')).toEqual([]);

    const more = await failedJobs(bullpen, 'tidy', 1);
    const { id } = await bullpen.dlq.record(input({ type: 'tidy', jobId: more[0] }));
    queue.getJobState = async () => {
      throw new Error('read refused');
    };
    expect(await bulk().purge({ type: 'tidy' }, { by: 'root' }, 0)).toBe(1);
    expect(await bullpen.dlq.get(id)).toBeUndefined();
    expect(log.lines.find((l) => l.msg === 'could not remove a purged dead letter’s failed job')).toMatchObject({
      level: 'warn',
      dlqId: id,
      jobId: more[0],
      err: { message: 'read refused' },
    });
  });

  it('a tenant’s purge reaches one workspace only when it names one, with its failed jobs, and says how many', async () => {
    const jobs = await failedJobs(bullpen, 'notify', 2);
    const one = await record(1, { tenant: { orgId: 'org-w', workspaceId: 'ws-1' }, jobId: jobs[0] });
    const two = await record(3, { tenant: { orgId: 'org-w', workspaceId: 'ws-2' } });
    const org = await record(1, { tenant: { orgId: 'org-w' }, jobId: jobs[1] });
    const other = await record(2, { tenant: { orgId: 'org-other' } });
    const read: string[] = [];
    const reading = bulk({
      getMany: async (ids) => {
        read.push(...ids);
        return bullpen.dlq.getMany(ids);
      },
    });
    expect(await reading.purgeTenant({ orgId: 'org-w', workspaceId: 'ws-1' }, { by: 'gdpr', batchSize: 2 }, 0)).toBe(1);
    // It walks the organisation's index only: another tenant's letters are never read.
    expect(read.sort()).toEqual([...one, ...two, ...org].sort());
    expect(await bullpen.dlq.getMany(other)).toHaveLength(2);
    expect((await bullpen.dlq.getMany([...one, ...two, ...org])).map((e) => e.id)).toEqual([...two, ...org]);
    expect(await bullpen.queues.get('notify').getJobState(jobs[0])).toBe('unknown');
    expect(await bullpen.queues.get('notify').getJobState(jobs[1])).toBe('failed');
    expect(log.lines.find((l) => l.msg === 'dead letters of a tenant purged')).toMatchObject({
      level: 'warn',
      tenant: { orgId: 'org-w', workspaceId: 'ws-1' },
      by: 'gdpr',
      removed: 1,
    });
    log.lines.length = 0;
    expect(await bulk().purgeTenant({ orgId: 'org-none' }, { by: 'gdpr' }, 0)).toBe(0);
    expect(log.lines.filter((l) => l.msg === 'dead letters of a tenant purged')).toEqual([]);
    expect(await bulk().purgeTenant({ orgId: 'org-w' }, { by: 'gdpr', batchSize: 2 }, 0)).toBe(4);
    expect(await bullpen.queues.get('notify').getJobState(jobs[1])).toBe('unknown');
  });

  it('a tenant’s purge removes a replay’s claim taken before the stale bound, and leaves a later one', async () => {
    const [id] = await record(1, { tenant: { orgId: 'org-busy' } });
    const { release } = holdAdds(bullpen.queues.get('notify'));
    const replaying = bullpen.dlq.replay(id, { by: 'alice' });
    try {
      await expect.poll(async () => (await bullpen.dlq.get(id))?.status).toBe('replaying');
      const claimedAt = (await bullpen.dlq.get(id))!.updatedAt;
      expect(await bulk().purgeTenant({ orgId: 'org-busy' }, { by: 'gdpr' }, claimedAt - 1)).toBe(0);
      expect((await bullpen.dlq.get(id))?.status).toBe('replaying');
      expect(await bulk().purgeTenant({ orgId: 'org-busy' }, { by: 'gdpr' }, claimedAt)).toBe(1);
      expect(await bullpen.dlq.get(id)).toBeUndefined();
    } finally {
      release();
    }
    await replaying.catch(() => undefined);
  });

  it('a purge of `replaying` letters removes a claim taken before the stale bound, and leaves a live one', async () => {
    const [id] = await record(1, { type: 'notify' });
    const { release } = holdAdds(bullpen.queues.get('notify'));
    const replaying = bullpen.dlq.replay(id, { by: 'alice' });
    try {
      await expect.poll(async () => (await bullpen.dlq.get(id))?.status).toBe('replaying');
      const claimedAt = (await bullpen.dlq.get(id))!.updatedAt;
      // The store's own purge: its bound is 60 s back, and this claim is a moment old.
      expect(await bullpen.dlq.purge({ status: 'replaying' }, { by: 'root' })).toBe(0);
      expect(await bulk().purge({ status: 'replaying' }, { by: 'root' }, claimedAt - 1)).toBe(0);
      expect((await bullpen.dlq.get(id))?.status).toBe('replaying');
      expect(await bulk().purge({ status: 'replaying' }, { by: 'root' }, claimedAt)).toBe(1);
      expect(await bullpen.dlq.get(id)).toBeUndefined();
    } finally {
      release();
    }
    await replaying.catch(() => undefined);
  });

  it('prunes replayed and discarded letters untouched since the cutoff, counted from the `now` given, and logs it', async () => {
    const ids = await record(4);
    await bullpen.dlq.replay(ids[0], { by: 'ops' });
    await bullpen.dlq.discard(ids[1], 'ops');
    await bullpen.dlq.discard(ids[2], 'ops');
    const times = (await bullpen.dlq.getMany(ids.slice(0, 3))).map((e) => e.updatedAt);
    const [first, touched] = [Math.min(...times), Math.max(...times)];
    // Default: 30 days. A day short of it keeps them; so does a cutoff just before the first was touched.
    expect(await bulk().prune({ now: touched + 29 * DAY })).toBe(0);
    expect(await bulk().prune({ now: first + 10_000, olderThanMs: 10_001 })).toBe(0);
    expect(log.lines.filter((l) => l.msg === 'old dead letters pruned')).toEqual([]);
    const read: string[] = [];
    const reading = bulk({
      getMany: async (want) => {
        read.push(...want);
        return bullpen.dlq.getMany(want);
      },
    });
    expect(await reading.prune({ now: touched + 10_000, olderThanMs: 10_000, batchSize: 2 })).toBe(3);
    // It walks the replayed and discarded indexes only: a pending letter is never read.
    expect(read.sort()).toEqual(ids.slice(0, 3).sort());
    expect((await bullpen.dlq.getMany(ids)).map((e) => [e.id, e.status])).toEqual([[ids[3], 'pending']]);
    expect(log.lines.find((l) => l.msg === 'old dead letters pruned')).toMatchObject({ level: 'info', removed: 3, cutoff: touched });
  });
});
