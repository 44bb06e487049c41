import { useTestRedis } from '../helpers/use-test-redis';
import { CapturingAlerter } from '../helpers/capturing-alerter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { DeadLetterStore } from '@/lib/dlq/dead-letter-store';
import { MAX_ERROR_MESSAGE, MAX_ERROR_STACK } from '@/lib/dlq/entry';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { capturingLogger } from '../helpers/capturing-logger';
import { testBullpen } from '../helpers/test-bullpen';
import { uniquePrefix } from '../helpers/redis';
import { refusal } from '../helpers/refusal';

/**
 * The dead-letter store's rules one by one, beside dlq-store.test.ts's scenarios: what
 * each refusal says, what a record keeps, and what each outcome returns.
 */
let seq = 0;
function input(over: Partial<DeadLetterInput> & { payload?: unknown } = {}): DeadLetterInput {
  seq++;
  const { payload, ...rest } = over;
  const envelope: JobEnvelope = {
    payload: payload ?? { webhookId: 'wh-1', event: 'order.created', payload: { n: seq } },
    requestId: `req-${seq}`,
    dispatchedAt: 1_700_000_000_000,
  };
  return {
    queue: 'notify',
    jobId: `rules-${seq}`,
    jobType: 'notify',
    jobData: envelope,
    error: { message: 'boom', errorClass: 'server' },
    attempts: 10,
    failedAt: 1_700_000_000_000 + seq,
    source: 'runtime',
    ...rest,
  };
}

/**
 * Holds every job the queue is asked to add until `release()`, so a replay stays in its
 * `replaying` state for the test to act on; `restore()` puts the queue's own add back.
 */
function holdAdds(queue: ReturnType<Bullpen['queues']['get']>) {
  const original = queue.add.bind(queue);
  let release!: () => void;
  queue.add = (async (...args: Parameters<typeof queue.add>) => {
    await new Promise<void>((r) => {
      release = r;
    });
    return original(...args);
  }) as typeof queue.add;
  return {
    release: () => release(),
    restore: () => {
      queue.add = original;
    },
  };
}

describe('DeadLetterStore rules', () => {
  let bullpen: Bullpen;
  let prefix: string;
  const server = useTestRedis();
  beforeEach(() => {
    prefix = uniquePrefix();
    bullpen = testBullpen(server.redis, { prefix });
  });
  afterEach(async () => {
    await bullpen.close();
  });

  it('alerts at 100 pending by default and refuses a threshold that is not a positive integer', () => {
    const opts = { redis: bullpen.redis, keys: bullpen.keys, queues: bullpen.queues, alerter: new CapturingAlerter() };
    expect(new DeadLetterStore(opts).threshold).toBe(100);
    expect(new DeadLetterStore({ ...opts, alertThreshold: 1 }).threshold).toBe(1);
    expect(() => new DeadLetterStore({ ...opts, alertThreshold: 0 })).toThrow('The DLQ alert threshold must be a positive integer, got 0');
    expect(() => new DeadLetterStore({ ...opts, alertThreshold: 2.5 })).toThrow(/got 2.5/);
  });

  it('the threshold alert names the count, the threshold and the entry', async () => {
    const alerter = new CapturingAlerter();
    const store = new DeadLetterStore({ redis: bullpen.redis, keys: bullpen.keys, queues: bullpen.queues, alerter, alertThreshold: 1 });
    const { id } = await store.record(input());
    expect(alerter.alerts).toEqual([
      {
        reason: 'dlq_threshold',
        type: 'notify',
        message: 'The dead-letter queue holds 1 pending entries (threshold 1)',
        fields: { pending: 1, threshold: 1, dlqId: id },
      },
    ]);
  });

  it('cuts a long message, stack and code instead of refusing: a dead letter is always written', async () => {
    const long = input({
      error: {
        message: 'm'.repeat(MAX_ERROR_MESSAGE + 50),
        stack: 's'.repeat(MAX_ERROR_STACK + 50),
        code: 'c'.repeat(300),
        errorClass: 'server',
      },
    });
    const { id, created } = await bullpen.dlq.record(long);
    expect(created).toBe(true);
    const { error } = (await bullpen.dlq.get(id))!;
    expect(error.message).toBe(`${'m'.repeat(MAX_ERROR_MESSAGE - 1)}…`);
    expect(error.stack).toBe(`${'s'.repeat(MAX_ERROR_STACK - 1)}…`);
    expect(error.code).toBe(`${'c'.repeat(199)}…`);
    const exact = input({ error: { message: 'm'.repeat(MAX_ERROR_MESSAGE), errorClass: 'server' } });
    expect((await bullpen.dlq.get((await bullpen.dlq.record(exact)).id))?.error.message).toBe('m'.repeat(MAX_ERROR_MESSAGE));
  });

  it('keeps the envelope’s tenant and payload; a plain producer’s data keeps its own payload field', async () => {
    const tenantInEnvelope = input();
    (tenantInEnvelope.jobData as JobEnvelope).tenant = { orgId: 'org-env' };
    expect(await bullpen.dlq.get((await bullpen.dlq.record(tenantInEnvelope)).id)).toMatchObject({ tenant: { orgId: 'org-env' } });
    const bare = input({ jobData: { payload: { raw: true }, other: 1 } });
    expect(await bullpen.dlq.get((await bullpen.dlq.record(bare)).id)).toMatchObject({ payload: { raw: true } });
  });

  it('reads: a malformed id is nothing, no ids is no call, missing entries are left out in order', async () => {
    expect(await bullpen.dlq.get('not-an-id')).toBeUndefined();
    expect(await bullpen.dlq.getMany([])).toEqual([]);
    const a = await bullpen.dlq.record(input());
    const b = await bullpen.dlq.record(input());
    const many = await bullpen.dlq.getMany([b.id, 'dlq-000000000000000000000000', a.id]);
    expect(many.map((e) => e.id)).toEqual([b.id, a.id]);
  });

  it('a replay records who, when and the job; the job keeps the chain’s first job id and a fresh dispatch time', async () => {
    const i = input();
    const { id } = await bullpen.dlq.record(i);
    const before = Date.now();
    const entry = await bullpen.dlq.replay(id, { by: 'alice' });
    expect(entry.status).toBe('replayed');
    expect(entry.replays).toHaveLength(1);
    expect(entry.replays[0]).toMatchObject({ by: 'alice', newJobId: `replay-${id}-1`, edited: false });
    expect(entry.replays[0].at).toBeGreaterThanOrEqual(before);
    const job = await bullpen.queues.get('notify').getJob(`replay-${id}-1`);
    expect(job?.data).toMatchObject({ replayOf: id, originJobId: i.jobId, requestId: (i.jobData as JobEnvelope).requestId });
    expect(job?.data.dispatchedAt).toBeGreaterThanOrEqual(before);
    const second = await bullpen.dlq.replay(id, { by: 'bob', expectedReplays: 1 });
    const job2 = await bullpen.queues.get('notify').getJob(second.replays[1].newJobId);
    expect(job2?.data.originJobId).toBe(i.jobId);
  });

  it('a replay of an entry without an envelope gets a new request id', async () => {
    const bare = input({ jobData: { payload: { webhookId: 'wh-1', event: 'e', payload: {} } } });
    const { id } = await bullpen.dlq.record(bare);
    await bullpen.dlq.replay(id, { by: 'alice' });
    const job = await bullpen.queues.get('notify').getJob(`replay-${id}-1`);
    expect(job?.data.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(job?.data.originJobId).toBe(bare.jobId);
  });

  it('says why a replay is refused: again without the count, a stale count, a discarded entry', async () => {
    const { id } = await bullpen.dlq.record(input());
    await bullpen.dlq.replay(id, { by: 'alice' });
    const again = await refusal(bullpen.dlq.replay(id, { by: 'alice' }));
    expect(again.code).toBe('CONFLICT');
    expect(again.message).toBe(`Dead letter ${id} is replayed with 1 replays; pass expectedReplays to replay it again`);
    expect(again.details).toEqual({ status: 'replayed', replays: 1 });
    const stale = await refusal(bullpen.dlq.replay(id, { by: 'alice', expectedReplays: 0 }));
    expect(stale.message).toBe(`Dead letter ${id} is replayed with 1 replays; someone replayed it meanwhile (expected 0 replays)`);
    const pending = (await bullpen.dlq.record(input())).id;
    const stalePending = await refusal(bullpen.dlq.replay(pending, { by: 'alice', expectedReplays: 2 }));
    expect(stalePending.message).toBe(
      `Dead letter ${pending} is pending with 0 replays; someone replayed it meanwhile (expected 2 replays)`,
    );
    await bullpen.dlq.discard(id, 'ops');
    const discarded = await refusal(bullpen.dlq.replay(id, { by: 'alice', expectedReplays: 1 }));
    expect(discarded.message).toBe(`Dead letter ${id} is discarded with 1 replays; it cannot be replayed now`);
    const missing = await refusal(bullpen.dlq.replay('dlq-000000000000000000000000', { by: 'alice' }));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: 'No dead letter dlq-000000000000000000000000' });
  });

  it('a bulk replay restricted to pending leaves an entry that was replayed meanwhile', async () => {
    const { id } = await bullpen.dlq.record(input());
    await bullpen.dlq.replay(id, { by: 'alice' });
    expect((await refusal(bullpen.dlq.replayAs(id, { by: 'bulk', expectedReplays: 1 }, ['pending']))).code).toBe('CONFLICT');
  });

  it('refuses a replay of a type this build does not know, and an edit of a locked field, naming them', async () => {
    const ghost = await bullpen.dlq.record(input({ queue: 'ghost-type', jobType: 'ghost-type' }));
    const unknown = await refusal(bullpen.dlq.replay(ghost.id, { by: 'alice' }));
    expect(unknown).toMatchObject({
      code: 'VALIDATION',
      message: `Dead letter ${ghost.id} is of job type "ghost-type", which this build does not know`,
    });
    const { id } = await bullpen.dlq.record(input());
    const one = await refusal(bullpen.dlq.replay(id, { by: 'alice', payload: { webhookId: 'wh-2', event: 'order.created', payload: {} } }));
    expect(one.message).toBe('Refused: the edit changes locked field webhookId');
    expect(one.details).toEqual({
      issues: [{ path: ['webhookId'], message: 'locked: an edit may not change it (dispatch a new job to target another webhookId)' }],
      lockedFields: ['webhookId'],
    });
    const two = await refusal(bullpen.dlq.replay(id, { by: 'alice', payload: { webhookId: 'wh-2', event: 'order.created', payload: {} } }));
    expect(two.message).toBe('Refused: the edit changes locked field webhookId');
    expect((await bullpen.dlq.get(id))?.status).toBe('pending');
  });

  it('a recorded payload the schema refuses needs an edit to be replayed; with one, it is', async () => {
    const { id } = await bullpen.dlq.record(input({ payload: { webhookId: 'wh-1', event: '' } }));
    const e = await refusal(bullpen.dlq.replay(id, { by: 'alice' }));
    expect(e.code).toBe('VALIDATION');
    expect(e.message).toMatch(
      new RegExp(`^Dead letter ${id}'s payload does not pass the notify schema \\(.*\\); replay it with an edited payload$`),
    );
    expect(e.message).not.toContain('\n');
    expect(e.details).toMatchObject({ needsEdit: true });
    expect((e.details?.issues as unknown[]).length).toBeGreaterThan(0);
    const fixed = await bullpen.dlq.replay(id, { by: 'alice', payload: { webhookId: 'wh-1', event: 'fixed', payload: {} } });
    expect(fixed.replays[0]).toMatchObject({ edited: true });
  });

  it('discard: pending or replayed only, with the status in the refusal', async () => {
    const { id } = await bullpen.dlq.record(input());
    await bullpen.dlq.replay(id, { by: 'alice' });
    expect(await bullpen.dlq.discard(id, 'ops')).toMatchObject({ status: 'discarded', discardedBy: 'ops' });
    const other = (await bullpen.dlq.record(input())).id;
    // A replay in progress: its claim stands until it finishes or goes stale.
    const queue = bullpen.queues.get('notify');
    const { release, restore } = holdAdds(queue);
    const replaying = bullpen.dlq.replay(other, { by: 'alice' });
    try {
      await expect.poll(async () => (await bullpen.dlq.get(other))?.status).toBe('replaying');
      const refused = await refusal(bullpen.dlq.discard(other, 'ops'));
      expect(refused).toMatchObject({
        code: 'CONFLICT',
        message: `Dead letter ${other} is replaying; it cannot be discarded now`,
        details: { status: 'replaying' },
      });
      const retry = await bullpen.dlq.claimQueueRetry('notify', (await bullpen.dlq.get(other))!.originalJobId, 'bob');
      expect(retry).toEqual({ outcome: 'refused', id: other, status: 'replaying', reason: 'its dead letter is being replayed right now' });
    } finally {
      release();
      restore();
    }
    await replaying;
  });

  it('a retry from the queue is refused for a replayed or discarded record, with the reason', async () => {
    const a = input();
    const { id } = await bullpen.dlq.record(a);
    await bullpen.dlq.replay(id, { by: 'alice' });
    expect(await bullpen.dlq.claimQueueRetry(a.queue, a.jobId, 'bob', a.jobData)).toEqual({
      outcome: 'refused',
      id,
      status: 'replayed',
      reason: 'its dead letter was already replayed (or retried); running the original again would repeat it with the old data',
    });
    const b = input();
    const other = await bullpen.dlq.record(b);
    await bullpen.dlq.discard(other.id, 'ops');
    expect(await bullpen.dlq.claimQueueRetry(b.queue, b.jobId, 'bob')).toEqual({
      outcome: 'refused',
      id: other.id,
      status: 'discarded',
      reason: 'its dead letter was discarded; replay it from the dead letters to run it again',
    });
    await expect(bullpen.dlq.claimQueueRetry(b.queue, b.jobId, '')).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('undoing a claim that was not made changes nothing', async () => {
    const a = input();
    const { id } = await bullpen.dlq.record(a);
    await bullpen.dlq.replay(id, { by: 'alice' });
    const before = await bullpen.dlq.get(id);
    await bullpen.dlq.unclaimQueueRetry({ outcome: 'refused', id, status: 'replayed', reason: 'x' }, a.jobId);
    await bullpen.dlq.unclaimQueueRetry({ outcome: 'none' }, a.jobId);
    expect(await bullpen.dlq.get(id)).toEqual(before);
  });

  it('every call waits for the connection to be ready, so it may be a process’s first', async () => {
    const a = input();
    const { id } = await bullpen.dlq.record(a);
    const b = input();
    await bullpen.dlq.record(b);
    const other = input();
    other.jobData = { ...(other.jobData as JobEnvelope), tenant: { orgId: 'org-gone' } };
    await bullpen.dlq.record(other);
    const first = async <T>(call: (store: DeadLetterStore) => Promise<T>): Promise<T> => {
      const fresh = testBullpen(server.redis, { prefix });
      try {
        return await call(fresh.dlq);
      } finally {
        await fresh.close();
      }
    };
    expect((await first((s) => s.get(id)))?.id).toBe(id);
    expect(await first((s) => s.getMany([id]))).toHaveLength(1);
    expect((await first((s) => s.list())).total).toBe(3);
    expect(await first((s) => s.pendingCount())).toBe(3);
    expect((await first((s) => s.counts())).total).toBe(3);
    expect(await first((s) => s.claimQueueRetry('notify', 'no-record', 'ops'))).toEqual({ outcome: 'none' });
    expect((await first((s) => s.replay(id, { by: 'ops' }))).status).toBe('replayed');
    expect((await first((s) => s.discard(id, 'ops'))).status).toBe('discarded');
    expect(await first((s) => s.prune({ now: Date.now() + 40 * 86_400_000 }))).toBe(1);
    expect(await first((s) => s.purgeTenant({ orgId: 'org-gone' }, { by: 'ops' }))).toBe(1);
    expect((await first((s) => s.replayMany({ type: 'sync' }, { by: 'ops' }))).processed).toBe(0);
    expect((await first((s) => s.discardMany({}, { by: 'ops' }))).processed).toBe(1);
    expect(await first((s) => s.purge({ status: 'discarded' }, { by: 'ops' }))).toBe(1);
  });

  it('bulk discard and a tenant’s purge reach only what they name', async () => {
    const ours = [input(), input()];
    for (const i of ours) (i.jobData as JobEnvelope).tenant = { orgId: 'org-d' };
    const [x, y] = [await bullpen.dlq.record(ours[0]), await bullpen.dlq.record(ours[1])];
    const kept = await bullpen.dlq.record(input());
    expect(await bullpen.dlq.discardMany({ tenant: 'org-d' }, { by: 'ops' })).toMatchObject({ processed: 2, succeeded: 2, failed: 0 });
    expect((await bullpen.dlq.get(x.id))?.status).toBe('discarded');
    expect((await bullpen.dlq.get(kept.id))?.status).toBe('pending');
    expect(await bullpen.dlq.purgeTenant({ orgId: 'org-d' }, { by: 'ops' })).toBe(2);
    expect(await bullpen.dlq.getMany([x.id, y.id, kept.id])).toHaveLength(1);
  });

  it('logs a written dead letter at debug and a replay at info, under the dlq component', async () => {
    const { logger, lines } = capturingLogger();
    const store = new DeadLetterStore({
      redis: bullpen.redis,
      keys: bullpen.keys,
      queues: bullpen.queues,
      alerter: new CapturingAlerter(),
      logger,
    });
    const i = input();
    const { id } = await store.record(i);
    await store.record(i);
    const written = lines.filter((l) => l.msg === 'dead letter written');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      level: 'debug',
      component: 'dlq',
      dlqId: id,
      queue: 'notify',
      jobId: i.jobId,
      outcome: 1,
    });
    await store.replay(id, { by: 'alice' });
    expect(lines.find((l) => l.msg === 'dead letter replayed')).toMatchObject({
      level: 'info',
      component: 'dlq',
      dlqId: id,
      jobId: `replay-${id}-1`,
      by: 'alice',
      edited: false,
    });
  });

  it('names what it refused: the record, the filter, the page, the replay options, the actor', async () => {
    const bad = { ...input(), attempts: -1 };
    expect((await refusal(bullpen.dlq.record(bad))).message).toMatch(/^Invalid dead letter: /);
    expect((await refusal(bullpen.dlq.list({ status: 'lost' as never }))).message).toMatch(/^Invalid dead-letter filter: /);
    expect((await refusal(bullpen.dlq.list({}, { limit: 0 }))).message).toMatch(/^Invalid page: /);
    const { id } = await bullpen.dlq.record(input());
    expect((await refusal(bullpen.dlq.replay(id, { by: '' }))).message).toMatch(/^Invalid replay options: /);
    expect((await refusal(bullpen.dlq.discard(id, ''))).message).toMatch(/^Invalid actor: /);
    expect((await refusal(bullpen.dlq.claimQueueRetry('notify', 'x', ''))).message).toMatch(/^Invalid actor: /);
    const missing = await refusal(bullpen.dlq.discard('dlq-000000000000000000000000', 'ops'));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: 'No dead letter dlq-000000000000000000000000' });
  });

  it('a discarded entry cannot be replayed, whatever count is passed', async () => {
    const { id } = await bullpen.dlq.record(input());
    await bullpen.dlq.discard(id, 'ops');
    const e = await refusal(bullpen.dlq.replay(id, { by: 'alice' }));
    expect(e.message).toBe(`Dead letter ${id} is discarded with 0 replays; it cannot be replayed now`);
  });

  it('an invalid edit carries the schema’s issues; an unreplayable payload’s message is zod’s on one line', async () => {
    const { id } = await bullpen.dlq.record(input());
    const e = await refusal(bullpen.dlq.replay(id, { by: 'alice', payload: { webhookId: 'wh-1', event: '' } }));
    expect((e.details?.issues as unknown[]).length).toBeGreaterThan(0);
    const stuck = (await bullpen.dlq.record(input({ payload: { webhookId: 'wh-1', event: '', payload: {} } }))).id;
    const one = await refusal(bullpen.dlq.replay(stuck, { by: 'alice' }));
    expect(one.message).toContain(' → at event)');
    expect(one.message).toContain('Too small');
  });

  it('a record without an error message stores an empty one', async () => {
    const i = input();
    const { id } = await bullpen.dlq.record({ ...i, error: { errorClass: 'server' } as never });
    expect((await bullpen.dlq.get(id))?.error.message).toBe('');
  });

  it('a key of the wrong type where an entry should be is an error, not a missing entry', async () => {
    const i = input();
    const { id } = await bullpen.dlq.record(i);
    await bullpen.redis.del(bullpen.dlq.keys.entry(id));
    await bullpen.redis.set(bullpen.dlq.keys.entry(id), 'not a hash');
    await expect(bullpen.dlq.getMany([id])).rejects.toThrow(/WRONGTYPE/);
  });

  it('a tenant’s purge leaves an entry whose replay is in progress', async () => {
    const i = input();
    (i.jobData as JobEnvelope).tenant = { orgId: 'org-busy' };
    const { id } = await bullpen.dlq.record(i);
    const queue = bullpen.queues.get('notify');
    const { release, restore } = holdAdds(queue);
    const replaying = bullpen.dlq.replay(id, { by: 'alice' });
    try {
      await expect.poll(async () => (await bullpen.dlq.get(id))?.status).toBe('replaying');
      expect(await bullpen.dlq.purgeTenant({ orgId: 'org-busy' }, { by: 'ops' })).toBe(0);
    } finally {
      release();
      restore();
    }
    await replaying;
    expect(await bullpen.dlq.purgeTenant({ orgId: 'org-busy' }, { by: 'ops' })).toBe(1);
  });
});
