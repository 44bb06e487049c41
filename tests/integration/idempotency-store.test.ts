import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { IdempotencyStore } from '@/lib/idempotency/idempotency-store';
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
