import { useTestRedis } from '../helpers/use-test-redis';
import { CapturingAlerter } from '../helpers/capturing-alerter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import type { ErrorClass } from '@/lib/errors/classify';
import { DeadLetterStore } from '@/lib/dlq/dead-letter-store';
import { deadLetterId, replayJobId, type DeadLetterEntry } from '@/lib/dlq/entry';
import { CLAIM_REPLAY, FINISH_REPLAY, ROLLBACK_REPLAY } from '@/lib/dlq/scripts';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { TEST_CATALOG } from '../helpers/test-jobs';
import { testBullpen } from '../helpers/test-bullpen';

const T0 = 1_700_000_000_000;
let seq = 0;

/** A dead letter as the runtime reports it; `makeInput({ jobType: 'tidy' })`. */
function makeInput(overrides: Partial<DeadLetterInput> & { orgId?: string; errorClass?: ErrorClass } = {}): DeadLetterInput {
  const { orgId, errorClass, ...rest } = overrides;
  const jobType = rest.jobType ?? 'notify';
  const payload =
    jobType === 'notify' ? { webhookId: 'wh-1', event: 'order.created', payload: { n: seq } } : { maxAgeMs: 1_000, batchSize: 10 };
  const tenant = orgId ? { orgId } : undefined;
  const envelope: JobEnvelope = { payload, tenant, requestId: `req-${seq}`, dispatchedAt: T0 };
  seq++;
  return {
    queue: jobType,
    jobId: `job-${seq}`,
    jobType,
    jobData: envelope,
    error: { message: 'boom', stack: 'Error: boom\n    at x', errorClass: errorClass ?? 'unknown' },
    attempts: 3,
    failedAt: T0 + seq * 1_000,
    tenant,
    source: 'runtime',
    ...rest,
  };
}

/** Jobs waiting to run, whatever their priority (a prioritized job is not in `waiting`). */
function queued(queue: ReturnType<Bullpen['queues']['get']>): Promise<number> {
  return queue.getJobCountByTypes('waiting', 'prioritized', 'delayed');
}

async function expectAppError(p: Promise<unknown>, code: AppError['code']): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  return err as AppError;
}

describe('DeadLetterStore', () => {
  let bullpen: Bullpen;

  const server = useTestRedis();
  beforeEach(() => {
    bullpen = testBullpen(server.redis);
  });
  afterEach(async () => {
    await bullpen.close();
  });

  it('records a final failure once, even when the same job is recorded concurrently', async () => {
    const input = makeInput({ orgId: 'org-a', errorClass: 'validation' });
    const results = await Promise.all(Array.from({ length: 10 }, () => bullpen.dlq.record(input)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const id = deadLetterId(input.queue, input.jobId);
    expect(new Set(results.map((r) => r.id))).toEqual(new Set([id]));
    expect((await bullpen.dlq.record(input)).created).toBe(false);

    const entry = await bullpen.dlq.getByJob(input.queue, input.jobId);
    expect(entry).toMatchObject({
      id,
      queue: 'notify',
      originalJobId: input.jobId,
      status: 'pending',
      tenant: { orgId: 'org-a' },
      payload: (input.jobData as JobEnvelope).payload,
      error: { message: 'boom', errorClass: 'validation' },
      replays: [],
    });
    // One member in each index it belongs to, nothing more.
    const k = bullpen.dlq.keys;
    for (const key of [k.all, k.byType('notify'), k.byTenant('org-a'), k.byErrorClass('validation'), k.byStatus('pending')]) {
      expect(await bullpen.redis.zrange(key, 0, -1)).toEqual([id]);
    }
    expect(await bullpen.dlq.counts()).toEqual({ pending: 1, replaying: 0, replayed: 0, discarded: 0, total: 1 });
    expect(await bullpen.dlq.pendingCount()).toBe(1);
  });

  it('filters by type, tenant, error class, status and time, newest first, with totals and paging', async () => {
    const inputs: DeadLetterInput[] = [];
    for (let i = 0; i < 45; i++) {
      inputs.push(
        makeInput({
          jobType: i % 3 === 0 ? 'tidy' : 'notify',
          orgId: i % 2 === 0 ? 'org-a' : i % 5 === 0 ? undefined : 'org-b',
          errorClass: i % 4 === 0 ? 'timeout' : 'server',
          // Some share a failedAt: ties must page without gaps or repeats.
          failedAt: T0 + Math.floor(i / 3) * 1_000,
        }),
      );
    }
    for (const input of inputs) await bullpen.dlq.record(input);
    const ids = inputs.map((i) => deadLetterId(i.queue, i.jobId));
    await bullpen.dlq.discard(ids[4], 'alice');
    await bullpen.dlq.discard(ids[10], 'alice');

    const all = await bullpen.dlq.list({}, { limit: 200 });
    const byScoreThenIdDesc = (a: DeadLetterEntry, b: DeadLetterEntry) => b.failedAt - a.failedAt || (a.id < b.id ? 1 : -1);
    expect(all.total).toBe(45);
    expect(all.entries.map((e) => e.id)).toEqual([...all.entries].sort(byScoreThenIdDesc).map((e) => e.id));

    const expectFilter = async (filter: Parameters<DeadLetterStore['list']>[0], keep: (e: DeadLetterEntry) => boolean) => {
      const expected = all.entries.filter(keep).map((e) => e.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await bullpen.dlq.list(filter, { limit: 4, cursor });
        expect(page.total).toBe(expected.length);
        expect(page.entries.length).toBeLessThanOrEqual(4);
        seen.push(...page.entries.map((e) => e.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 50);
      expect(seen).toEqual(expected);
      return expected.length;
    };

    expect(await expectFilter({ type: 'tidy' }, (e) => e.jobType === 'tidy')).toBe(15);
    expect(await expectFilter({ tenant: 'org-a' }, (e) => e.tenant?.orgId === 'org-a')).toBe(23);
    expect(await expectFilter({ errorClass: 'timeout' }, (e) => e.error.errorClass === 'timeout')).toBe(12);
    expect(await expectFilter({ status: 'discarded' }, (e) => e.status === 'discarded')).toBe(2);
    await expectFilter(
      { type: 'notify', tenant: 'org-b', status: 'pending' },
      (e) => e.jobType === 'notify' && e.tenant?.orgId === 'org-b' && e.status === 'pending',
    );
    await expectFilter(
      { errorClass: 'server', from: T0 + 3_000, to: T0 + 10_000 },
      (e) => e.error.errorClass === 'server' && e.failedAt >= T0 + 3_000 && e.failedAt <= T0 + 10_000,
    );
    await expectFilter({ from: T0 + 12_000 }, (e) => e.failedAt >= T0 + 12_000);

    // Offset paging gives the same order.
    const second = await bullpen.dlq.list({ tenant: 'org-a' }, { limit: 5, offset: 5 });
    expect(second.entries.map((e) => e.id)).toEqual(
      all.entries
        .filter((e) => e.tenant?.orgId === 'org-a')
        .slice(5, 10)
        .map((e) => e.id),
    );

    // A multi-filter list sees a write made right after it (the cached intersection is versioned).
    const before = await bullpen.dlq.list({ type: 'notify', status: 'discarded' });
    await bullpen.dlq.discard(ids[1], 'bob');
    const after = await bullpen.dlq.list({ type: 'notify', status: 'discarded' });
    expect(after.total).toBe(before.total + 1);
    expect(after.entries.map((e) => e.id)).toContain(ids[1]);

    await expectAppError(bullpen.dlq.list({}, { limit: 201 }), 'VALIDATION');
    await expectAppError(bullpen.dlq.list({ status: 'lost' as never }), 'VALIDATION');
  });

  it('replays twice at once into exactly one job with fresh attempts, tenant and envelope', async () => {
    const input = makeInput({ orgId: 'org-a' });
    const { id } = await bullpen.dlq.record(input);
    const outcomes = await Promise.allSettled([bullpen.dlq.replay(id, { by: 'alice' }), bullpen.dlq.replay(id, { by: 'bob' })]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as AppError).code).toBe('CONFLICT');

    const queue = bullpen.queues.get('notify');
    expect(await queued(queue)).toBe(1);
    const job = await queue.getJob(`replay-${id}-1`);
    expect(job?.opts.attempts).toBe(TEST_CATALOG.get('notify').attempts);
    expect(job?.attemptsMade).toBe(0);
    expect(job?.data).toMatchObject({
      payload: (input.jobData as JobEnvelope).payload,
      tenant: { orgId: 'org-a' },
      requestId: (input.jobData as JobEnvelope).requestId,
      replayOf: id,
    });

    const entry = await bullpen.dlq.get(id);
    expect(entry?.status).toBe('replayed');
    expect(entry?.replays).toEqual([expect.objectContaining({ newJobId: `replay-${id}-1`, edited: false })]);

    // A second replay must be deliberate: without the count the operator saw, CONFLICT.
    await expectAppError(bullpen.dlq.replay(id, { by: 'alice' }), 'CONFLICT');
    await expectAppError(bullpen.dlq.replay(id, { by: 'alice', expectedReplays: 0 }), 'CONFLICT');
    const again = await bullpen.dlq.replay(id, { by: 'alice', expectedReplays: 1 });
    expect(again.replays.map((r) => r.newJobId)).toEqual([`replay-${id}-1`, `replay-${id}-2`]);
    expect(await queued(queue)).toBe(2);
  });

  it('refuses an invalid edited payload and changes nothing; replays a valid one with it', async () => {
    const { id } = await bullpen.dlq.record(makeInput());
    const before = await bullpen.dlq.get(id);
    const err = await expectAppError(bullpen.dlq.replay(id, { by: 'alice', payload: { webhookId: '', event: 42 } }), 'VALIDATION');
    expect(err.message).toMatch(/notify payload/);
    expect(err.message).toMatch(/webhookId|event/);
    expect(await bullpen.dlq.get(id)).toEqual(before);
    expect(await queued(bullpen.queues.get('notify'))).toBe(0);

    // The webhook id is locked (tests/integration/app/tenant-isolation.test.ts); the event and body may change.
    const edited = { webhookId: 'wh-1', event: 'order.fixed', payload: { fixed: true } };
    const entry = await bullpen.dlq.replay(id, { by: 'alice', payload: edited });
    expect(entry.replays[0]).toMatchObject({ by: 'alice', edited: true });
    const job = await bullpen.queues.get('notify').getJob(entry.replays[0].newJobId);
    expect((job?.data as JobEnvelope).payload).toEqual(edited);
    expect((job?.data as JobEnvelope).editedReplay).toBe(entry.replays[0].newJobId);
    // The edit is what the record holds now: the next replay sends it, never the data it replaced.
    expect((await bullpen.dlq.get(id))?.payload).toEqual(edited);
    const again = await bullpen.dlq.replay(id, { by: 'bob', expectedReplays: 1 });
    const next = await bullpen.queues.get('notify').getJob(again.replays[1].newJobId);
    expect((next?.data as JobEnvelope).payload).toEqual(edited);
  });

  it('takes an edit that changes nothing as a plain replay: the original’s key, the record as it was', async () => {
    const input = makeInput();
    (input.jobData as JobEnvelope).idempotencyKey = 'order-7';
    const { id } = await bullpen.dlq.record(input);
    const recorded = await bullpen.dlq.get(id);
    const entry = await bullpen.dlq.replay(id, { by: 'alice', payload: structuredClone((input.jobData as JobEnvelope).payload) });
    expect(entry.replays[0]).toMatchObject({ by: 'alice', edited: false });
    const data = (await bullpen.queues.get('notify').getJob(entry.replays[0].newJobId))?.data as JobEnvelope;
    // A changed key would let the replay run an effect the original already had.
    expect(data.idempotencyKey).toBe('order-7');
    expect(data.editedReplay).toBeUndefined();
    // Only the status and the history changed: the data and error are the ones recorded.
    const after = await bullpen.dlq.get(id);
    expect(after?.payload).toEqual(recorded?.payload);
    expect(after?.jobData).toEqual(recorded?.jobData);
    expect(after?.error).toEqual(recorded?.error);
  });

  it('gives an edited replay of a keyed job a key of its own, derived from the original’s, never chained', async () => {
    const input = makeInput();
    (input.jobData as JobEnvelope).idempotencyKey = 'order-7';
    const { id } = await bullpen.dlq.record(input);
    const keyOf = async (entry: DeadLetterEntry) =>
      ((await bullpen.queues.get('notify').getJob(entry.replays.at(-1)?.newJobId as string))?.data as JobEnvelope).idempotencyKey;
    const edit = (event: string) => ({ webhookId: 'wh-1', event, payload: { fixed: true } });
    // The original's key holds its outcome: the edit must not be refused by it, nor repeat it.
    const first = await bullpen.dlq.replay(id, { by: 'alice', payload: edit('order.fixed') });
    expect(await keyOf(first)).toBe(`order-7:${replayJobId(id, 1)}`);
    // A second edit replaces the first's suffix rather than adding to it.
    const second = await bullpen.dlq.replay(id, { by: 'alice', payload: edit('order.fixed-again'), expectedReplays: 1 });
    expect(await keyOf(second)).toBe(`order-7:${replayJobId(id, 2)}`);
  });

  it('lists a payload over LIST_PAYLOAD_BYTES by its size and start; one under it whole', async () => {
    const payloadOf = (n: number) => ({ webhookId: 'wh-1', event: 'order.created', payload: { text: 'x'.repeat(n) } });
    const small = makeInput();
    (small.jobData as JobEnvelope).payload = payloadOf(12_000);
    const big = makeInput();
    (big.jobData as JobEnvelope).payload = payloadOf(20_000);
    const [a, b] = [await bullpen.dlq.record(small), await bullpen.dlq.record(big)];
    const [whole, cut] = await bullpen.dlq.getMany([a.id, b.id]);
    expect(whole.payload).toEqual(payloadOf(12_000));
    expect(whole.payloadCut).toBeUndefined();
    expect(cut.payload).toBeUndefined();
    expect(cut.payloadCut?.bytes).toBe(JSON.stringify(payloadOf(20_000)).length);
    expect(cut.payloadCut?.preview).toHaveLength(16 * 1024);
    expect((await bullpen.dlq.get(b.id))?.payload).toEqual(payloadOf(20_000));
  });

  it('rolls a replay back to pending when the enqueue fails', async () => {
    const { id } = await bullpen.dlq.record(makeInput());
    const queue = bullpen.queues.get('notify');
    const original = queue.add.bind(queue);
    // Two filters: the page is a cached intersection; one read while the replay is claimed.
    const listed = async (status: 'pending' | 'replaying') => (await bullpen.dlq.list({ status, type: 'notify' })).entries.map((e) => e.id);
    let during: string[] = [];
    queue.add = (async () => {
      during = await listed('replaying');
      throw new Error('redis went away');
    }) as typeof queue.add;
    try {
      const err = await expectAppError(bullpen.dlq.replay(id, { by: 'alice' }), 'UNAVAILABLE');
      expect(err.message).toBe(`Could not enqueue the replay of ${id}: redis went away`);
    } finally {
      queue.add = original;
    }
    expect(during).toContain(id);
    expect(await listed('replaying')).not.toContain(id);
    expect(await listed('pending')).toContain(id);
    expect((await bullpen.dlq.get(id))?.status).toBe('pending');
    expect(await bullpen.redis.zscore(bullpen.dlq.keys.byStatus('replaying'), id)).toBeNull();
    // The retry reuses replay number 1.
    const entry = await bullpen.dlq.replay(id, { by: 'alice' });
    expect(entry.replays[0].newJobId).toBe(`replay-${id}-1`);
  });

  it('reports a replay whose own job removed the record before the replay returned, as a tenant’s deletion does', async () => {
    const { id } = await bullpen.dlq.record(makeInput({ orgId: 'org-gone' }));
    const store = bullpen.dlq;
    const get = store.get.bind(store);
    let reads = 0;
    // The replay reads the record before its claim and again once it is finished: between the
    // two, the replayed job (a data-deletion for this tenant) purges the tenant's dead letters.
    store.get = (async (entryId: string) => {
      if (++reads === 2) await store.purgeTenant({ orgId: 'org-gone' }, { by: 'tenant-deletion' });
      return get(entryId);
    }) as typeof store.get;
    const entry = await store.replay(id, { by: 'alice' });
    store.get = get;
    expect(reads).toBe(2);
    expect(entry).toMatchObject({ id, status: 'replayed', replays: [{ by: 'alice', newJobId: `replay-${id}-1`, edited: false }] });
    expect(await bullpen.queues.get('notify').getJob(`replay-${id}-1`)).toBeDefined();
    expect(await store.get(id)).toBeUndefined();
  });

  it('discards, refuses to replay a discarded entry, and discarding twice is a no-op', async () => {
    const { id } = await bullpen.dlq.record(makeInput());
    const entry = await bullpen.dlq.discard(id, 'carol');
    expect(entry).toMatchObject({ status: 'discarded', discardedBy: 'carol' });
    expect(await bullpen.redis.zscore(bullpen.dlq.keys.byStatus('discarded'), id)).not.toBeNull();
    expect(await bullpen.redis.zscore(bullpen.dlq.keys.byStatus('pending'), id)).toBeNull();
    await expectAppError(bullpen.dlq.replay(id, { by: 'carol' }), 'CONFLICT');
    expect((await bullpen.dlq.discard(id, 'dave')).discardedBy).toBe('carol');
    await expectAppError(bullpen.dlq.discard('dlq-000000000000000000000000', 'dave'), 'NOT_FOUND');
  });

  it('purges by filter, leaving the others and their indexes intact', async () => {
    const a = await Promise.all(Array.from({ length: 7 }, () => bullpen.dlq.record(makeInput({ jobType: 'tidy', orgId: 'org-x' }))));
    const b = await Promise.all(Array.from({ length: 3 }, () => bullpen.dlq.record(makeInput({ orgId: 'org-x' }))));
    const progress: number[] = [];
    // Two filters: a cached intersection, which the purge must leave fresh.
    expect((await bullpen.dlq.list({ type: 'tidy', tenant: 'org-x' })).total).toBe(7);
    const removed = await bullpen.dlq.purge({ type: 'tidy' }, { by: 'admin', batchSize: 3, onProgress: (p) => progress.push(p.succeeded) });
    expect(removed).toBe(7);
    expect((await bullpen.dlq.list({ type: 'tidy', tenant: 'org-x' })).total).toBe(0);
    expect(progress).toEqual([3, 6, 7]);
    for (const { id } of a) expect(await bullpen.redis.exists(bullpen.dlq.keys.entry(id))).toBe(0);
    const k = bullpen.dlq.keys;
    expect(await bullpen.redis.zcard(k.byType('tidy'))).toBe(0);
    expect((await bullpen.redis.zrange(k.byTenant('org-x'), 0, -1)).sort()).toEqual(b.map((r) => r.id).sort());
    expect(await bullpen.redis.zcard(k.all)).toBe(3);
    expect((await bullpen.dlq.counts()).pending).toBe(3);
  });

  it('pages on from a cursor whose entry was purged meanwhile, each entry once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await bullpen.dlq.record(makeInput({ jobType: i === 1 ? 'tidy' : 'notify' }))).id);
    const first = await bullpen.dlq.list({}, { limit: 3 });
    expect(first.entries.map((e) => e.id)).toEqual([ids[3], ids[2], ids[1]]);
    // The cursor names the page's last entry, which goes before the next page is read.
    expect(await bullpen.dlq.purge({ type: 'tidy' }, { by: 'admin' })).toBe(1);
    const next = await bullpen.dlq.list({}, { limit: 3, cursor: first.nextCursor });
    expect(next.entries.map((e) => e.id)).toEqual([ids[0]]);
    expect(next.nextCursor).toBeUndefined();
  });

  it('prunes old replayed and discarded entries, never pending ones', async () => {
    const pending = await bullpen.dlq.record(makeInput());
    const discarded = await bullpen.dlq.record(makeInput());
    const replayed = await bullpen.dlq.record(makeInput());
    await bullpen.dlq.discard(discarded.id, 'ops');
    await bullpen.dlq.replay(replayed.id, { by: 'ops' });
    expect(await bullpen.dlq.prune()).toBe(0); // touched just now: kept for 30 days
    const DAY = 86_400_000;
    expect(await bullpen.dlq.prune({ now: Date.now() + 31 * DAY })).toBe(2);
    expect(await bullpen.dlq.get(pending.id)).toBeDefined();
    expect(await bullpen.dlq.get(discarded.id)).toBeUndefined();
    expect(await bullpen.dlq.get(replayed.id)).toBeUndefined();
    expect(await bullpen.dlq.counts()).toEqual({ pending: 1, replaying: 0, replayed: 0, discarded: 0, total: 1 });
  });

  it('raises the threshold alert once per crossing and re-arms below it', async () => {
    const alerter = new CapturingAlerter();
    const store = new DeadLetterStore({ redis: bullpen.redis, keys: bullpen.keys, queues: bullpen.queues, alerter, alertThreshold: 3 });
    const inputs = Array.from({ length: 5 }, () => makeInput());
    const recorded = [];
    for (const input of inputs) recorded.push(await store.record(input));
    expect(alerter.alerts).toHaveLength(1);
    expect(alerter.alerts[0]).toMatchObject({ reason: 'dlq_threshold', fields: { pending: 3, threshold: 3 } });
    await store.record(inputs[0]); // a duplicate write raises nothing
    expect(alerter.alerts).toHaveLength(1);

    for (const r of recorded.slice(0, 3)) await store.discard(r.id, 'ops');
    expect(await store.pendingCount()).toBe(2);
    await store.record(makeInput()); // 3 again: a new crossing
    expect(alerter.alerts).toHaveLength(2);
    await store.record(makeInput());
    expect(alerter.alerts).toHaveLength(2);
  });

  it('claims the record for a retry from the failed tab as a replay would, refuses a second one, and re-opens on a new failure', async () => {
    const input = makeInput();
    const { id } = await bullpen.dlq.record(input);
    const claim = await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'alice', input.jobData);
    expect(claim).toMatchObject({ outcome: 'claimed', id });
    expect(await bullpen.dlq.get(id)).toMatchObject({
      status: 'replayed',
      replays: [{ by: 'alice', newJobId: input.jobId, edited: false }],
    });
    // The same failure cannot be retried twice, from the queue or from the DLQ without saying so.
    expect(await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'bob', input.jobData)).toMatchObject({
      outcome: 'refused',
      status: 'replayed',
    });
    await expectAppError(bullpen.dlq.replay(id, { by: 'bob' }), 'CONFLICT');
    expect(await bullpen.dlq.claimQueueRetry(input.queue, 'no-such-job', 'alice')).toEqual({ outcome: 'none' });

    // The same job fails again after the retry: the same record, pending again, both failures kept.
    const retriedAt = claim.outcome === 'claimed' ? claim.at : 0;
    const again = await bullpen.dlq.record({
      ...input,
      failedAt: retriedAt + 5,
      attempts: 1,
      error: { message: 'still broken', errorClass: 'server' },
    });
    expect(again).toEqual({ id, created: true, reopened: true });
    const reopened = await bullpen.dlq.get(id);
    expect(reopened).toMatchObject({
      status: 'pending',
      failedAt: retriedAt + 5,
      attempts: 1,
      error: { message: 'still broken', errorClass: 'server' },
    });
    expect(reopened?.failures.map((f) => [f.jobId, f.attempts, f.error.message])).toEqual([
      [input.jobId, 3, 'boom'],
      [input.jobId, 1, 'still broken'],
    ]);
    expect(reopened?.replays).toHaveLength(1);
    expect(await bullpen.redis.zscore(bullpen.dlq.keys.byErrorClass('unknown'), id)).toBeNull();
    expect(Number(await bullpen.redis.zscore(bullpen.dlq.keys.byErrorClass('server'), id))).toBe(retriedAt + 5);
    // Recording that failure again (the reconciler sweeping it) changes nothing.
    expect((await bullpen.dlq.record({ ...input, failedAt: retriedAt + 5, error: { message: 'x', errorClass: 'server' } })).created).toBe(
      false,
    );
    expect((await bullpen.dlq.get(id))?.failures).toHaveLength(2);
  });

  it('a queue retry moves its record between the status lists at once, and refuses the chain’s older job', async () => {
    const input = makeInput();
    const { id } = await bullpen.dlq.record(input);
    // Two filters: the page is a cached intersection (of a non-empty result), which a write must never leave stale.
    const listed = async (status: 'pending' | 'replayed') => (await bullpen.dlq.list({ status, type: 'notify' })).entries.map((e) => e.id);
    expect(await listed('pending')).toEqual([id]);
    const { id: newer } = await bullpen.dlq.record(makeInput());
    expect(await listed('pending')).toEqual([newer, id]);
    // Each cached intersection lives the pager's 10 s: a name a write left behind is never kept.
    const cached = await bullpen.redis.keys(bullpen.dlq.keys.intersection('*'));
    expect(cached.length).toBeGreaterThan(0);
    for (const key of cached) expect(await bullpen.redis.pttl(key)).toBeGreaterThan(0);
    for (const key of cached) expect(await bullpen.redis.pttl(key)).toBeLessThanOrEqual(10_000);
    const claim = await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'alice', input.jobData);
    expect(await listed('pending')).not.toContain(id);
    expect(await listed('replayed')).toContain(id);
    await bullpen.dlq.unclaimQueueRetry(claim, input.jobId);
    expect(await listed('pending')).toContain(id);

    // Replayed, and the replay's job failed for good: the record is pending again, its
    // latest failure the replay's job. The original job would run with the data it replaced.
    await bullpen.dlq.replay(id, { by: 'bob' });
    const replayJob = await bullpen.queues.get(input.queue).getJob(replayJobId(id, 1));
    await bullpen.dlq.record({ ...input, jobId: replayJob!.id!, jobData: replayJob!.data, failedAt: Date.now() + 1 });
    expect(await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'carol', input.jobData)).toMatchObject({
      outcome: 'refused',
      status: 'replayed',
      latestJobId: replayJobId(id, 1),
    });
    expect(await bullpen.dlq.get(id)).toMatchObject({ status: 'pending', replays: [{ by: 'bob' }] });
  });

  it('takes over a replay whose process stopped a minute ago; that process’s late finish changes nothing', async () => {
    const { id } = await bullpen.dlq.record(makeInput());
    const keys = [bullpen.dlq.keys.entry(id), bullpen.dlq.keys.version];
    const base = bullpen.dlq.keys.base;
    // What a replay's first step does (dead-letter-store.ts replayAs), by a process that then stopped.
    const claimAt = (at: number) =>
      CLAIM_REPLAY.run(bullpen.redis, keys, [base, id, at, at - 60_000, 'pending,replayed', '', replayJobId(id, '')]);
    // Two filters: the page is a cached intersection, which every step must leave fresh.
    const listed = async (status: 'pending' | 'replaying' | 'replayed') =>
      (await bullpen.dlq.list({ status, type: 'notify' })).entries.map((e) => e.id);
    expect(await listed('pending')).toContain(id);
    const stoppedAt = Date.now() - 120_000;
    expect(await claimAt(stoppedAt)).toEqual([1, 1]);
    expect(await listed('pending')).not.toContain(id);
    expect(await listed('replaying')).toContain(id);
    const entry = await bullpen.dlq.replay(id, { by: 'bob' });
    expect(entry).toMatchObject({ status: 'replayed', replays: [{ by: 'bob', newJobId: replayJobId(id, 1) }] });
    expect(await bullpen.queues.get('notify').getJob(replayJobId(id, 1))).toBeDefined();
    expect(await listed('replaying')).not.toContain(id);
    expect(await listed('replayed')).toContain(id);
    // The stopped process comes back: its finish, or its rollback after a failed enqueue, changes nothing.
    const late = { at: stoppedAt, by: 'alice', newJobId: replayJobId(id, 1), edited: false };
    expect(await FINISH_REPLAY.run(bullpen.redis, keys, [base, id, 1, stoppedAt, JSON.stringify(late), '', ''])).toBe(0);
    expect(await ROLLBACK_REPLAY.run(bullpen.redis, keys, [base, id, 1, Date.now()])).toBe(0);
    expect(await bullpen.dlq.get(id)).toMatchObject({ status: 'replayed', replays: [{ by: 'bob' }] });

    // A takeover is a fresh claim: a third replay within the minute is refused.
    const second = (await bullpen.dlq.record(makeInput())).id;
    const keys2 = [bullpen.dlq.keys.entry(second), bullpen.dlq.keys.version];
    const claim2 = (at: number) =>
      CLAIM_REPLAY.run(bullpen.redis, keys2, [base, second, at, at - 60_000, 'pending,replayed', '', replayJobId(second, '')]);
    expect(await claim2(stoppedAt)).toEqual([1, 1]);
    expect(await claim2(Date.now())).toEqual([1, 1]);
    await expectAppError(bullpen.dlq.replay(second, { by: 'carol' }), 'CONFLICT');
  });

  it('undoes a claim whose retry did not happen, history and all', async () => {
    const input = makeInput();
    const { id } = await bullpen.dlq.record(input);
    const claim = await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'alice', input.jobData);
    await bullpen.dlq.unclaimQueueRetry(claim, input.jobId);
    expect(await bullpen.dlq.get(id)).toMatchObject({ status: 'pending', replays: [] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'bob', input.jobData)).toMatchObject({ outcome: 'claimed' });
    // The first claim undone twice (a late second call) leaves bob's claim alone.
    await bullpen.dlq.unclaimQueueRetry(claim, input.jobId);
    expect(await bullpen.dlq.get(id)).toMatchObject({ status: 'replayed', replays: [{ by: 'bob' }] });

    // Undoing a retry of a replay's job keeps the replay before it in the history.
    const other = makeInput();
    const second = (await bullpen.dlq.record(other)).id;
    await bullpen.dlq.replay(second, { by: 'carol' });
    const replayJob = await bullpen.queues.get(other.queue).getJob(replayJobId(second, 1));
    await bullpen.dlq.record({ ...other, jobId: replayJob!.id!, jobData: replayJob!.data, failedAt: Date.now() + 1 });
    const retry = await bullpen.dlq.claimQueueRetry(other.queue, replayJob!.id!, 'dave', replayJob!.data);
    expect(retry).toMatchObject({ outcome: 'claimed', id: second });
    await bullpen.dlq.unclaimQueueRetry(retry, replayJob!.id!);
    expect(await bullpen.dlq.get(second)).toMatchObject({ status: 'pending', replays: [{ by: 'carol' }] });
  });

  it('keeps one record per failure: a replay that fails again re-opens its record, whose history grows', async () => {
    const input = makeInput();
    const { id } = await bullpen.dlq.record(input);
    const queue = bullpen.queues.get(input.queue);
    const before = (await bullpen.dlq.counts()).total;
    for (let n = 1; n <= 3; n++) {
      await bullpen.dlq.replay(id, { by: 'alice', ...(n > 1 ? { expectedReplays: n - 1 } : {}) });
      const replayJob = await queue.getJob(`replay-${id}-${n}`);
      expect(replayJob?.data.replayOf).toBe(id);
      // The replay's job fails for good: the runtime records it like any final failure.
      const r = await bullpen.dlq.record({
        ...input,
        jobId: replayJob!.id!,
        jobData: replayJob!.data,
        attempts: 10,
        failedAt: Date.now() + 1,
        error: { message: `replay ${n} failed`, errorClass: 'server' },
      });
      expect(r).toEqual({ id, created: true, reopened: true });
    }
    expect((await bullpen.dlq.counts()).total).toBe(before);
    const entry = await bullpen.dlq.get(id);
    expect(entry?.status).toBe('pending');
    expect(entry?.failures.map((f) => f.error.message)).toEqual(['boom', 'replay 1 failed', 'replay 2 failed', 'replay 3 failed']);
    expect(entry?.replays.map((r) => r.newJobId)).toEqual([1, 2, 3].map((n) => `replay-${id}-${n}`));
    expect(await bullpen.dlq.getByJob(input.queue, `replay-${id}-2`, (await queue.getJob(`replay-${id}-2`))?.data)).toMatchObject({ id });
  });

  it('lets exactly one of a queue retry and a DLQ replay of the same failure through, however they race', async () => {
    for (let round = 0; round < 10; round++) {
      const input = makeInput();
      const { id } = await bullpen.dlq.record(input);
      const [retry, replay] = await Promise.allSettled([
        bullpen.dlq.claimQueueRetry(input.queue, input.jobId, 'alice', input.jobData),
        bullpen.dlq.replay(id, { by: 'bob' }),
      ]);
      const retried = retry.status === 'fulfilled' && retry.value.outcome === 'claimed';
      const replayed = replay.status === 'fulfilled';
      expect([retried, replayed].filter(Boolean), `round ${round}`).toHaveLength(1);
      expect((await bullpen.dlq.get(id))?.replays).toHaveLength(1);
    }
  });

  it('replays many in batches with progress, only those matching, up to the limit', async () => {
    const ours = await Promise.all(Array.from({ length: 12 }, () => bullpen.dlq.record(makeInput({ orgId: 'org-r' }))));
    await bullpen.dlq.record(makeInput({ orgId: 'org-other' }));
    await bullpen.dlq.discard(ours[0].id, 'ops');
    const progress: number[] = [];
    const result = await bullpen.dlq.replayMany(
      { tenant: 'org-r' },
      { by: 'ops', batchSize: 5, limit: 8, onProgress: (p) => progress.push(p.processed) },
    );
    expect(result).toMatchObject({ processed: 8, succeeded: 8, skipped: 0, refused: 0, failed: 0 });
    expect(progress).toEqual([5, 8]);
    expect(await queued(bullpen.queues.get('notify'))).toBe(8);
    // An entry the caller turns down is left pending and counted as refused, apart from changed-meanwhile skips.
    const pendingLeft = await bullpen.dlq.list({ tenant: 'org-r', status: 'pending' }, { limit: 10 });
    expect(pendingLeft.entries).toHaveLength(3);
    const turnedDown = pendingLeft.entries[1].id;
    const rest = await bullpen.dlq.replayMany(
      { tenant: 'org-r' },
      { by: 'ops', refuse: (e) => (e.id === turnedDown ? 'not here' : undefined) },
    );
    expect(rest).toMatchObject({ succeeded: 2, skipped: 1, refused: 1, failed: 0 });
    expect((await bullpen.dlq.get(turnedDown))?.status).toBe('pending');
    const last = await bullpen.dlq.replayMany({ tenant: 'org-r' }, { by: 'ops' });
    expect(last).toMatchObject({ succeeded: 1, skipped: 0, refused: 0 });
    expect(await bullpen.dlq.counts()).toMatchObject({ pending: 1, replayed: 11, discarded: 1 });
    await expectAppError(bullpen.dlq.replayMany({ status: 'discarded' }, { by: 'ops' }), 'VALIDATION');
    await expectAppError(bullpen.dlq.replayMany({}, { by: 'ops', limit: 10_001 }), 'VALIDATION');
  });
});
