import { describe, expect, it } from 'vitest';
import { SignInRateLimiter } from '@/dashboard/auth/rate-limiter';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * The sign-in limiter with its defaults (docs/security.md): 3 free failures per
 * (account, client), then 1 s doubling up to 15 min; 30 failures per client and 300 from
 * everyone per 15-minute window. "now" is passed in, so no test waits.
 */
const server = useTestRedis();
const MIN = 60_000;

async function limiter() {
  const b = await server.readyBullpen();
  return new SignInRateLimiter(b.redis, b.keys);
}

describe('sign-in rate limiter: defaults', () => {
  it('has the documented defaults', async () => {
    const l = await limiter();
    expect({ ...l, redis: undefined, keys: undefined }).toMatchObject({
      freeFailures: 3,
      baseDelayMs: 1_000,
      maxDelayMs: 15 * MIN,
      maxPerClient: 30,
      globalMax: 300,
      windowMs: 15 * MIN,
    });
  });

  it('takes three free attempts per account and client, then waits 1 s, doubling up to 15 minutes', async () => {
    const l = await limiter();
    let now = 1_000_000;
    for (let i = 0; i < 3; i++) expect(await l.reserve('eve', 'c1', now)).toMatchObject({ allowed: true });
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const r = await l.reserve('eve', 'c1', now);
      if (r.allowed) throw new Error(`attempt ${i + 4} was not delayed`);
      expect(r.scope).toBe('pair');
      waits.push(r.retryAfterMs);
      now += r.retryAfterMs;
      expect(await l.reserve('eve', 'c1', now)).toMatchObject({ allowed: true });
    }
    expect(waits.slice(0, 4)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(Math.max(...waits)).toBe(15 * MIN);
  });

  it('one pair’s delay is its own: names are compared without case, an empty client is one "unknown" client', async () => {
    const l = await limiter();
    const now = 5_000_000;
    for (let i = 0; i < 3; i++) await l.reserve('Eve', 'c1', now);
    expect(await l.reserve('EVE', 'c1', now)).toMatchObject({ allowed: false, scope: 'pair' });
    expect(await l.reserve('eve', 'c2', now)).toMatchObject({ allowed: true });
    expect(await l.reserve('bob', 'c1', now)).toMatchObject({ allowed: true });
    for (let i = 0; i < 3; i++) await l.reserve('zed', '', now);
    expect(await l.reserve('zed', 'unknown', now)).toMatchObject({ allowed: false, scope: 'pair' });
  });

  it('counts under the auth keys the dashboard and the audit read: pair by lower-cased name and client, client, global', async () => {
    const b = await server.readyBullpen();
    const l = new SignInRateLimiter(b.redis, b.keys);
    await l.reserve('Eve', '203.0.113.7', 1_000);
    await l.reserve('eve', '', 1_000);
    expect(await b.redis.hget(b.keys.tagged('auth', 'fail', 'pair', 'eve', '203.0.113.7'), 'fails')).toBe('1');
    expect(await b.redis.hget(b.keys.tagged('auth', 'fail', 'pair', 'eve', 'unknown'), 'fails')).toBe('1');
    expect(await b.redis.get(b.keys.tagged('auth', 'fail', 'client', '203.0.113.7'))).toBe('1');
    expect(await b.redis.get(b.keys.tagged('auth', 'fail', 'client', 'unknown'))).toBe('1');
    expect(await b.redis.get(b.keys.tagged('auth', 'fail', 'global'))).toBe('2');
  });

  it('a release starts the pair over', async () => {
    const l = await limiter();
    const now = 7_000_000;
    for (let i = 0; i < 3; i++) await l.reserve('amy', 'c1', now);
    await l.release('AMY', 'c1');
    for (let i = 0; i < 3; i++) expect(await l.reserve('amy', 'c1', now), `attempt ${i + 1}`).toMatchObject({ allowed: true });
    expect((await l.reserve('amy', 'c1', now)).allowed).toBe(false);
  });

  it('caps one client at 30 failures over any names per 15 minutes', async () => {
    const l = await limiter();
    const now = 9_000_000;
    for (let i = 0; i < 30; i++) expect((await l.reserve(`name-${i}`, 'sprayer', now)).allowed, `attempt ${i + 1}`).toBe(true);
    const r = await l.reserve('name-new', 'sprayer', now);
    expect(r).toMatchObject({ allowed: false, scope: 'client' });
    if (r.allowed) return;
    expect(r.retryAfterMs).toBeGreaterThan(14 * MIN);
    expect(r.retryAfterMs).toBeLessThanOrEqual(15 * MIN);
    expect(await l.reserve('name-new', 'someone-else', now)).toMatchObject({ allowed: true });
  });

  it('caps everyone at 300 failures per 15 minutes, for clients that failed themselves', async () => {
    const l = await limiter();
    const now = 11_000_000;
    for (let i = 0; i < 300; i++) expect((await l.reserve('target', `client-${i}`, now)).allowed, `attempt ${i + 1}`).toBe(true);
    const r = await l.reserve('other', 'client-7', now);
    expect(r).toMatchObject({ allowed: false, scope: 'global' });
    // The window is the counter's time to live in Redis, started by the first failure a moment ago.
    if (!r.allowed) expect(r.retryAfterMs).toBeGreaterThan(14 * MIN);
    if (!r.allowed) expect(r.retryAfterMs).toBeLessThanOrEqual(15 * MIN);
    // The cap bounds hashing, not accounts: a client with no failure in the window gets its attempt.
    expect(await l.reserve('other', 'fresh-client', now)).toEqual({ allowed: true, clean: true });
    expect(await l.reserve('other', 'fresh-client', now)).toMatchObject({ allowed: false, scope: 'global' });
  });

  it('counts in fixed windows: a failure never restarts a window, a counter without one gets one', async () => {
    const b = await server.readyBullpen();
    const l = new SignInRateLimiter(b.redis, b.keys);
    const pair = b.keys.tagged('auth', 'fail', 'pair', 'fay', 'c5');
    const client = b.keys.tagged('auth', 'fail', 'client', 'c5');
    const global = b.keys.tagged('auth', 'fail', 'global');
    // A window already running (one minute left) and a global counter that lost its time to live.
    await b.redis.set(client, '5', 'PX', MIN);
    await b.redis.set(global, '5');
    expect(await l.reserve('fay', 'c5', 15_000_000)).toEqual({ allowed: true, clean: false });
    expect(await b.redis.get(client)).toBe('6');
    expect(await b.redis.pttl(client)).toBeGreaterThan(MIN - 10_000);
    expect(await b.redis.pttl(client)).toBeLessThanOrEqual(MIN);
    expect(await b.redis.pttl(global)).toBeGreaterThan(14 * MIN);
    // The pair lives twice the longest delay, so a delay is never forgotten before it ends.
    expect(await b.redis.pttl(pair)).toBeGreaterThan(29 * MIN);
    expect(await b.redis.pttl(pair)).toBeLessThanOrEqual(30 * MIN);
  });

  it('a capped client waits what is left of its window; a counter without one, the whole window', async () => {
    const b = await server.readyBullpen();
    const l = new SignInRateLimiter(b.redis, b.keys);
    await b.redis.set(b.keys.tagged('auth', 'fail', 'client', 'c6'), '30', 'PX', MIN);
    const r = await l.reserve('gus', 'c6', 17_000_000);
    expect(r).toMatchObject({ allowed: false, scope: 'client' });
    if (!r.allowed) expect(r.retryAfterMs).toBeGreaterThan(MIN - 10_000);
    if (!r.allowed) expect(r.retryAfterMs).toBeLessThanOrEqual(MIN);
    await b.redis.set(b.keys.tagged('auth', 'fail', 'client', 'c7'), '30');
    expect(await l.reserve('gus', 'c7', 17_000_000)).toEqual({ allowed: false, scope: 'client', retryAfterMs: 15 * MIN });
  });

  it('a withdrawn reservation counts for nothing and keeps the pair', async () => {
    const b = await server.readyBullpen();
    const l = new SignInRateLimiter(b.redis, b.keys);
    const now = 13_000_000;
    await l.reserve('wes', 'c9', now);
    expect(await l.reserve('wes', 'c9', now)).toEqual({ allowed: true, clean: false });
    await l.withdraw('wes', 'c9');
    expect(await b.redis.hget(b.keys.tagged('auth', 'fail', 'pair', 'wes', 'c9'), 'fails')).toBe('1');
    expect(await b.redis.get(b.keys.tagged('auth', 'fail', 'client', 'c9'))).toBe('1');
    expect(await b.redis.get(b.keys.tagged('auth', 'fail', 'global'))).toBe('1');
  });
});
