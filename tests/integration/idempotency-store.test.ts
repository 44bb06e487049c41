import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { IdempotencyStore, MAX_RESPONSE_BYTES } from '@/lib/idempotency/idempotency-store';
import { IdempotencyInProgressError } from '@/lib/idempotency/in-progress-error';
import { hashRequest } from '@/lib/idempotency/request-hash';
import { buildIdempotencyKey } from '@/lib/jobs/idempotency-key';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const key = (entity = 'inv-7') =>
  buildIdempotencyKey({ domain: 'billing', userId: 'u1', entityId: entity, operation: 'charge', version: 'v1' });
const request = { amount: 1200, currency: 'EUR' };

async function rawRecord(b: Bullpen, k: string) {
  return b.redis.hgetall(b.keys.tagged('idem', k));
}

describe('IdempotencyStore', () => {
  it('starts, reports in-progress, completes and returns the stored response', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key();
    const h = hashRequest(request);

    expect(await store.begin(k, h)).toEqual({ state: 'started', takeover: false, attempts: 1 });
    const raw = await rawRecord(bullpen, k);
    expect(raw).toMatchObject({ status: 'processing', requestHash: h, attempts: '1' });
    expect(Number(raw.lockUntil)).toBeGreaterThan(Date.now() + 50_000);
    // A 24 h TTL from the start.
    expect(await store.ttl(k)).toBeGreaterThan(23 * 3_600_000);

    const second = await store.begin(k, h);
    expect(second.state).toBe('in-progress');

    await store.complete(k, { chargeId: 'ch_1', status: 201 });
    expect(await store.begin(k, h)).toEqual({ state: 'completed', response: { chargeId: 'ch_1', status: 201 } });
    const rec = await store.get(k);
    expect(rec).toMatchObject({ status: 'completed', requestHash: h, response: { chargeId: 'ch_1', status: 201 }, attempts: 1 });
    expect(rec?.lockUntil).toBeUndefined();

    // The first stored outcome stays.
    await store.complete(k, { chargeId: 'ch_2' });
    expect((await store.get(k))?.response).toEqual({ chargeId: 'ch_1', status: 201 });
  });

  it('refuses the same key with a different request, changing nothing', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key('inv-8');
    await store.begin(k, hashRequest(request));
    const before = await rawRecord(bullpen, k);
    const err = await store.begin(k, hashRequest({ ...request, amount: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('CONFLICT');
    expect((err as AppError).status).toBe(409);
    expect(await rawRecord(bullpen, k)).toEqual(before);
  });

  it('releases the key on a retryable failure and keeps a permanent one', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key('inv-9');
    const h = hashRequest(request);
    await store.begin(k, h);
    await store.fail(k, 'HTTP 503', { retryable: true });
    expect(await store.get(k)).toMatchObject({ status: 'failed', error: 'HTTP 503', retryable: true });
    expect(await store.begin(k, h)).toEqual({ state: 'started', takeover: false, attempts: 2 });

    await store.fail(k, 'HTTP 400: bad card', { retryable: false });
    expect(await store.begin(k, h)).toEqual({ state: 'failed', error: 'HTTP 400: bad card' });
    expect((await store.get(k))?.attempts).toBe(2);
  });

  it('lets another caller take over a processing record whose lock lapsed (its worker died)', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key('inv-10');
    const h = hashRequest(request);
    await store.begin(k, h, { lockMs: 60 });
    expect((await store.begin(k, h)).state).toBe('in-progress');
    await sleep(120);
    expect(await store.begin(k, h, { lockMs: 60_000 })).toEqual({ state: 'started', takeover: true, attempts: 2 });
    expect((await store.begin(k, h)).state).toBe('in-progress');
  });

  it("lets the lock's own owner take it over at once (a job re-run after its worker died), and nobody else", async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key('owned');
    const h = hashRequest(request);
    expect(await store.begin(k, h, { owner: 'notify:42' })).toMatchObject({ state: 'started', takeover: false });
    // Another job waits out the lock; the same job takes over without waiting.
    expect(await store.begin(k, h, { owner: 'notify:43' })).toMatchObject({ state: 'in-progress' });
    expect(await store.begin(k, h)).toMatchObject({ state: 'in-progress' });
    expect(await store.begin(k, h, { owner: 'notify:42' })).toEqual({ state: 'started', takeover: true, attempts: 2 });
    await store.complete(k, { ok: true });
    expect(await store.begin(k, h, { owner: 'notify:42' })).toEqual({ state: 'completed', response: { ok: true } });
  });

  it('gives a record its whole TTL again at every write, and keeps only the fields its state holds', async () => {
    bullpen = testBullpen(server.redis);
    const store = new IdempotencyStore(bullpen.redis, bullpen.keys, { ttlMs: 60_000 });
    const h = hashRequest(request);
    const shorten = (k: string) => bullpen.redis.pexpire(bullpen.keys.tagged('idem', k), 5_000);
    // A retryable failure, then the retry that takes the key over.
    const k = key('ttl-1');
    await store.begin(k, h);
    await shorten(k);
    await store.fail(k, 'HTTP 503', { retryable: true });
    expect(await store.ttl(k)).toBeGreaterThan(5_000);
    expect((await store.get(k))?.lockUntil).toBeUndefined();
    await shorten(k);
    expect(await store.begin(k, h)).toMatchObject({ state: 'started', attempts: 2 });
    expect(await store.ttl(k)).toBeGreaterThan(5_000);
    const retried = await store.get(k);
    expect(retried).toMatchObject({ status: 'processing' });
    expect(retried?.error).toBeUndefined();
    expect(retried?.retryable).toBeUndefined();
    await shorten(k);
    await store.complete(k, { ok: true });
    expect(await store.ttl(k)).toBeGreaterThan(5_000);
    // A completed record stays completed: a late failure report changes nothing.
    await store.fail(k, 'late timeout', { retryable: false });
    expect(await store.get(k)).toMatchObject({ status: 'completed', response: { ok: true } });
    expect((await store.get(k))?.error).toBeUndefined();
  });

  it('forgets a record after its TTL, so the key may run again', async () => {
    bullpen = testBullpen(server.redis);
    const store = new IdempotencyStore(bullpen.redis, bullpen.keys, { ttlMs: 150 });
    const k = key('inv-11');
    const h = hashRequest(request);
    await store.begin(k, h);
    await store.complete(k, { ok: true });
    expect(await store.ttl(k)).toBeLessThanOrEqual(150);
    await sleep(250);
    expect(await store.get(k)).toBeUndefined();
    expect((await store.begin(k, h)).state).toBe('started');
  });

  it('refuses complete() and fail() for a key never begun, and bad input', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    await expect(store.complete('never:begun', 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.fail('never:begun', 'x', { retryable: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await bullpen.redis.exists(bullpen.keys.tagged('idem', 'never:begun'))).toBe(0);
    await expect(store.begin('', 'h')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(store.begin('k', '')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(store.begin('k', 'h', { lockMs: -1 })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await bullpen.redis.exists(bullpen.keys.tagged('idem', 'k'))).toBe(0);
  });
});

describe('IdempotencyStore.runOnce', () => {
  it('runs the effect once for concurrent callers and replays its response after', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const k = key('inv-20');
    const h = hashRequest(request);
    let runs = 0;
    const effect = async () => {
      runs++;
      await sleep(50);
      return { chargeId: `ch_${runs}` };
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => store.runOnce(k, h, effect)));
    const done = results.filter((r) => r.status === 'fulfilled');
    const busy = results.filter((r) => r.status === 'rejected');
    expect(runs).toBe(1);
    expect(done).toHaveLength(1);
    expect(busy).toHaveLength(4);
    for (const r of busy) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyInProgressError);

    expect(await store.runOnce(k, h, effect)).toEqual({ response: { chargeId: 'ch_1' }, replayed: true });
    expect(runs).toBe(1);
  });

  it('runs again after a retryable failure, never after a permanent one', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);

    const k1 = key('inv-21');
    let runs = 0;
    await expect(
      store.runOnce(k1, h, async () => {
        runs++;
        throw new HttpError(503, 'busy');
      }),
    ).rejects.toThrow('busy');
    expect(await store.runOnce(k1, h, async () => ++runs)).toEqual({ response: 2, replayed: false });

    const k2 = key('inv-22');
    await expect(
      store.runOnce(k2, h, async () => {
        throw new HttpError(400, 'bad card');
      }),
    ).rejects.toThrow('bad card');
    let called = false;
    const err = await store.runOnce(k2, h, async () => (called = true)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(/bad card/);
    expect(called).toBe(false);
  });
});

describe('IdempotencyStore’s bounds', () => {
  it('refuses a key, hash, owner or lock past its bound and takes one just inside it, writing nothing for the refused', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    expect(() => new IdempotencyStore(bullpen.redis, bullpen.keys, { ttlMs: 0 })).toThrow(/Invalid ttlMs/);
    expect(() => new IdempotencyStore(bullpen.redis, bullpen.keys, { lockMs: 1.5 })).toThrow(/Invalid lockMs/);
    await expect(store.begin('k'.repeat(513), h)).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/at most 512 characters/),
    });
    await expect(store.begin('b:1', 'h'.repeat(129))).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/Invalid request hash/),
    });
    await expect(store.begin('b:1', h, { owner: 'o'.repeat(601) })).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/Invalid owner/),
    });
    expect(await bullpen.redis.exists(bullpen.keys.tagged('idem', 'b:1'))).toBe(0);
    expect((await store.begin('k'.repeat(512), h)).state).toBe('started');
    expect((await store.begin('b:1', 'h'.repeat(128), { owner: 'o'.repeat(600) })).state).toBe('started');
  });

  it('stores a response up to its byte limit and refuses one byte more, keeping the record processing', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const k = key('big');
    await store.begin(k, h);
    // JSON of a string: its characters and two quotes.
    const over = 'x'.repeat(MAX_RESPONSE_BYTES - 1);
    await expect(store.complete(k, over)).rejects.toMatchObject({
      code: 'VALIDATION',
      message: expect.stringMatching(/at most 262144 bytes/),
    });
    expect((await store.get(k))?.status).toBe('processing');
    await store.complete(k, 'x'.repeat(MAX_RESPONSE_BYTES - 2));
    expect(((await store.get(k))?.response as string).length).toBe(MAX_RESPONSE_BYTES - 2);

    const none = key('none');
    await store.begin(none, h);
    await store.complete(none, undefined);
    expect(await store.begin(none, h)).toEqual({ state: 'completed', response: null });
  });

  it('keeps 2,000 characters of an error, and names both hashes in a conflict', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const k = key('long-error');
    await store.begin(k, h);
    await store.fail(k, 'e'.repeat(3_000), { retryable: false });
    expect((await store.get(k))?.error).toBe('e'.repeat(2_000));
    const other = hashRequest({ amount: 1 });
    const err = (await store.begin(k, other).catch((e: unknown) => e)) as AppError;
    expect(err.message).toBe(`Idempotency key "${k}" was used before for a different request`);
    expect(err.details).toEqual({ key: k, requestHash: other, storedHash: h });
  });

  it('reads a record’s every field, and nothing for a key never begun', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const k = key('fields');
    const before = Date.now();
    const begun = await store.begin(k, h, { lockMs: 5_000 });
    expect(begun).toEqual({ state: 'started', takeover: false, attempts: 1 });
    const rec = await store.get(k);
    expect(rec).toMatchObject({ key: k, status: 'processing', requestHash: h, attempts: 1 });
    expect(rec?.response).toBeUndefined();
    expect(rec?.lockUntil).toBeGreaterThanOrEqual(before + 5_000);
    expect(rec?.lockUntil).toBeLessThan(Date.now() + 5_000 + 1_000);
    expect(rec?.createdAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(rec?.updatedAt).toBeGreaterThanOrEqual(rec?.createdAt ?? Number.NaN);
    const held = await store.begin(k, h);
    expect(held).toEqual({ state: 'in-progress', lockUntil: rec?.lockUntil });
    await store.fail(k, 'HTTP 400', { retryable: false });
    expect((await store.get(k))?.retryable).toBe(false);
    expect(await store.get(key('never'))).toBeUndefined();
    expect(await store.ttl(key('never'))).toBeUndefined();
  });

  it('runOnce: a held key names its lock’s end, and the caller’s rule decides what is retryable', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const k = key('held');
    await store.begin(k, h, { lockMs: 30_000 });
    const lockUntil = (await store.get(k))?.lockUntil;
    const busy = await store.runOnce(k, h, async () => 1).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(IdempotencyInProgressError);
    expect(busy).toMatchObject({ key: k, lockExpiresAt: lockUntil });

    const k2 = key('rule');
    // A 503 is retryable by withRetry's rule; the caller's rule says no.
    await expect(
      store.runOnce(k2, h, async () => Promise.reject(new HttpError(503, 'busy')), { isRetryable: () => false }),
    ).rejects.toThrow('busy');
    expect(await store.get(k2)).toMatchObject({ status: 'failed', error: 'busy', retryable: false });

    const k3 = key('thrown-string');
    await expect(store.runOnce(k3, h, async () => Promise.reject('plain text'))).rejects.toBe('plain text');
    expect(await store.get(k3)).toMatchObject({ status: 'failed', error: 'plain text' });
  });

  it('says which input broke which rule, and which key has no record', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const messageOf = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: AppError) => e.message,
      );
    expect(await messageOf(store.begin('', h))).toBe('Invalid idempotency key: an idempotency key must not be empty');
    expect(await messageOf(store.begin('k'.repeat(513), h))).toBe(
      'Invalid idempotency key: an idempotency key holds at most 512 characters',
    );
    expect(await messageOf(store.begin('b:2', ''))).toBe('Invalid request hash: a request hash must not be empty');
    expect(await messageOf(store.begin('b:2', h, { lockMs: -1.5 }))).toMatch(/^Invalid lockMs: \S/);
    const missing = await store.complete('never:begun', 1).catch((e: AppError) => e);
    expect(missing).toMatchObject({
      message: 'No idempotency record for "never:begun": begin() was not called or the record expired',
      details: { key: 'never:begun' },
    });
    expect(await store.fail('never:begun', 'x', { retryable: true }).catch((e: AppError) => e.details)).toEqual({ key: 'never:begun' });
    const k = key('too-big');
    await store.begin(k, h);
    const big = await store.complete(k, 'x'.repeat(MAX_RESPONSE_BYTES)).catch((e: AppError) => e);
    expect(big).toMatchObject({ message: `An idempotent response holds at most ${MAX_RESPONSE_BYTES} bytes of JSON`, details: { key: k } });
  });

  it('runOnce holds the key for the lock it is given, and names an earlier permanent failure', async () => {
    bullpen = testBullpen(server.redis);
    const store = bullpen.idempotency;
    const h = hashRequest(request);
    const k = key('short-lock');
    let lockUntil: number | undefined;
    const started = Date.now();
    await store.runOnce(k, h, async () => (lockUntil = (await store.get(k))?.lockUntil), { lockMs: 5_000 });
    // The store's default is 60 s.
    expect(lockUntil).toBeGreaterThanOrEqual(started + 5_000);
    expect(lockUntil).toBeLessThan(started + 30_000);

    const k2 = key('failed-before');
    await store.begin(k2, h);
    await store.fail(k2, 'HTTP 400', { retryable: false });
    const err = await store.runOnce(k2, h, async () => 1).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IDEMPOTENT_FAILURE', message: `The operation for idempotency key "${k2}" failed before: HTTP 400` });
  });
});
