import { useTestRedis } from '../helpers/use-test-redis';
import { mkdtemp, readFile, stat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { ensureFirstAdmin } from '@/dashboard/auth/first-admin';
import { resolveSessionSecret } from '@/dashboard/auth/session-secret';
import { SignInRateLimiter } from '@/dashboard/auth/rate-limiter';
import { SignInService } from '@/dashboard/auth/sign-in';
import { readyClient } from '@/lib/redis/connection';
import type { AppError } from '@/lib/errors/app-error';
import { UserStore } from '@/dashboard/auth/user-store';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

async function bullpenWithDataDir(): Promise<{ b: Bullpen; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-auth-'));
  return { b: testBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dir } }), dir };
}

describe('first admin', () => {
  it('creates admin once with a 0600 password file that signs in; a second start does nothing', async () => {
    const { b, dir } = await bullpenWithDataDir();
    bullpen = b;
    const first = await ensureFirstAdmin(b);
    expect(first).toMatchObject({ created: true, username: 'admin', file: path.join(dir, 'admin-password') });
    const file = await readFile(first.file!, 'utf8');
    expect(file.trim()).toBe(first.password);
    expect((await stat(first.file!)).mode & 0o777).toBe(0o600);

    expect(await ensureFirstAdmin(b)).toEqual({ created: false });
    const users = new UserStore(b.redis, b.keys);
    expect((await users.list()).map((u) => [u.username, u.role])).toEqual([['admin', 'admin']]);
    expect(await users.verifyCredentials('admin', first.password!)).toMatchObject({ username: 'admin', role: 'admin' });
    expect(await users.verifyCredentials('admin', 'wrong-password')).toBeUndefined();
  });

  it('lets exactly one of several racing starts create the admin', async () => {
    const { b } = await bullpenWithDataDir();
    bullpen = b;
    const results = await Promise.all([ensureFirstAdmin(b), ensureFirstAdmin(b), ensureFirstAdmin(b)]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await new UserStore(b.redis, b.keys).count()).toBe(1);
  });

  it('does nothing when any user exists', async () => {
    const { b, dir } = await bullpenWithDataDir();
    bullpen = b;
    await new UserStore(b.redis, b.keys).create({ username: 'olivia', role: 'operator', password: 'operator-pass-1' });
    expect(await ensureFirstAdmin(b)).toEqual({ created: false });
    await expect(stat(path.join(dir, 'admin-password'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('users', () => {
  it('creates, refuses duplicates and bad input, changes password and role with a new session epoch, removes', async () => {
    bullpen = testBullpen(server.redis);
    const users = new UserStore(bullpen.redis, bullpen.keys);
    const u = await users.create({ username: 'Victor', role: 'viewer', password: 'viewer-pass-1' });
    expect(u).toMatchObject({ username: 'victor', role: 'viewer', sessionEpoch: 0 });
    await expect(users.create({ username: 'victor', role: 'admin', password: 'another-pass-1' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(users.create({ username: 'x', role: 'viewer', password: 'long-enough-1' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(users.create({ username: 'short', role: 'viewer', password: 'short' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(users.create({ username: 'kingly', role: 'king' as never, password: 'long-enough-1' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    expect(await users.count()).toBe(1);

    await users.setPassword('victor', 'new-viewer-pass');
    expect(await users.verifyCredentials('victor', 'viewer-pass-1')).toBeUndefined();
    expect(await users.verifyCredentials('victor', 'new-viewer-pass')).toMatchObject({ sessionEpoch: 1 });
    await users.setRole('victor', 'operator');
    expect(await users.get('victor')).toMatchObject({ role: 'operator', sessionEpoch: 2 });

    await users.remove('victor');
    expect(await users.get('victor')).toBeUndefined();
    expect(await users.count()).toBe(0);
    await expect(users.remove('victor')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The hash never leaves the store.
    expect(JSON.stringify(await users.list())).not.toContain('scrypt');
  });
});

describe('sign-in throttling', () => {
  /** Wrong guesses as fast as they go; returns the codes. */
  async function guesses(svc: SignInService, name: string, client: string, n: number): Promise<string[]> {
    const codes: string[] = [];
    for (let i = 0; i < n; i++)
      codes.push(
        await svc.signIn(name, `guess-${i}`, client).then(
          () => 'OK',
          (e: { code: string }) => e.code,
        ),
      );
    return codes;
  }

  it('slows one client on one account with doubling delays, but never locks the account for another client', async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { limits: { freeFailures: 3, baseDelayMs: 60_000 } });
    await svc.users.create({ username: 'admin', role: 'admin', password: 'admin-pass-01' });
    expect(await guesses(svc, 'admin', '203.0.113.5', 4)).toEqual([
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'RATE_LIMITED',
    ]);
    const limited = await svc.signIn('admin', 'admin-pass-01', '203.0.113.5').catch((e: AppError) => e);
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429, details: { scope: 'pair' } });
    expect((limited as AppError).message).toMatch(/for this name from your address. Try again in/);
    // Five wrong passwords from five addresses used to lock the admin out for 15 minutes.
    for (let i = 0; i < 5; i++) await guesses(svc, 'admin', `198.51.100.${i}`, 3);
    expect(await svc.signIn('admin', 'admin-pass-01', '192.0.2.10')).toMatchObject({ username: 'admin' });
  });

  it('the delay doubles with each failure past the free ones, up to the cap', async () => {
    bullpen = testBullpen(server.redis);
    await readyClient(bullpen.redis);
    const limiter = new SignInRateLimiter(bullpen.redis, bullpen.keys, { freeFailures: 2, baseDelayMs: 1_000, maxDelayMs: 5_000 });
    let now = 1_000_000;
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await limiter.reserve('eve', 'c1', now);
      if (r.allowed) {
        waits.push(0);
        now += 1;
        continue;
      }
      waits.push(r.retryAfterMs);
      now += r.retryAfterMs;
      expect((await limiter.reserve('eve', 'c1', now)).allowed).toBe(true);
      now += 1;
    }
    // Two free, then 1 s, 2 s, 4 s, 5 s (capped), 5 s.
    expect(waits.map((w) => Math.round(w / 1_000))).toEqual([0, 0, 1, 2, 4, 5, 5]);
  });

  it('caps one client spraying many names, and everyone past the global cap', async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { limits: { maxPerClient: 4, globalMax: 10 } });
    await svc.users.create({ username: 'victor', role: 'viewer', password: 'viewer-pass-1' });
    for (let i = 0; i < 4; i++) await guesses(svc, `nobody${i}`, '10.9.9.9', 1);
    await expect(svc.signIn('victor', 'viewer-pass-1', '10.9.9.9')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { scope: 'client' },
    });
    expect(await svc.signIn('victor', 'viewer-pass-1', '10.0.0.2')).toMatchObject({ username: 'victor' });
    for (let i = 0; i < 6; i++) await guesses(svc, 'victor', `10.1.0.${i}`, 1);
    await expect(svc.signIn('victor', 'viewer-pass-1', '10.1.0.3')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { scope: 'global' },
    });
    // Past the global cap a client with no failures of its own still signs in.
    expect(await svc.signIn('victor', 'viewer-pass-1', '10.2.0.1')).toMatchObject({ username: 'victor' });
  });

  it('30 parallel guesses: only the free ones reach a password check (reserve and count are one step)', async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { limits: { freeFailures: 3 }, hashing: { limit: 2, maxWaiting: 40 } });
    await svc.users.create({ username: 'admin', role: 'admin', password: 'admin-pass-01' });
    let checked = 0;
    const verify = svc.users.verifyCredentials.bind(svc.users);
    svc.users.verifyCredentials = async (n, p) => {
      checked++;
      return verify(n, p);
    };
    const codes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        svc.signIn('admin', `guess-${i}`, '203.0.113.9').then(
          () => 'OK',
          (e: { code: string }) => e.code,
        ),
      ),
    );
    expect(checked).toBe(3);
    expect(codes.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(3);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(27);
  });

  it('a success starts the pair over and does not count as a failure', async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { limits: { freeFailures: 3 } });
    await svc.users.create({ username: 'admin', role: 'admin', password: 'admin-pass-01' });
    await guesses(svc, 'admin', '1.1.1.1', 2);
    await svc.signIn('ADMIN ', 'admin-pass-01', '1.1.1.1');
    expect(await bullpen.redis.exists(bullpen.keys.tagged('auth', 'fail', 'pair', 'admin', '1.1.1.1'))).toBe(0);
    expect(await bullpen.redis.get(bullpen.keys.tagged('auth', 'fail', 'global'))).toBe('2');
  });

  it('bounds concurrent password hashing: past the waiting room an attempt is refused at once', async () => {
    bullpen = testBullpen(server.redis);
    await readyClient(bullpen.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { limits: { freeFailures: 100 }, hashing: { limit: 1, maxWaiting: 1 } });
    let running = 0;
    let peak = 0;
    svc.users.verifyCredentials = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 100));
      running--;
      return undefined;
    };
    const codes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        svc.signIn(`u${i}`, 'pw', `10.3.0.${i}`).then(
          () => 'OK',
          (e: AppError) => `${e.code}:${e.message}`,
        ),
      ),
    );
    expect(peak).toBe(1);
    expect(codes.filter((c) => c.startsWith('UNAUTHENTICATED'))).toHaveLength(2);
    expect(codes.filter((c) => c.startsWith('RATE_LIMITED:Sign-in is busy'))).toHaveLength(3);
  });
});

describe('server-side sessions', () => {
  it('sign-out closes the session at once; a password or role change closes all of the user’s sessions', async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys);
    await svc.users.create({ username: 'olivia', role: 'operator', password: 'operator-pass-1' });
    const a = await svc.sessions.open('olivia');
    const b = await svc.sessions.open('olivia');
    expect(await svc.sessions.isOpen(a, 'olivia')).toBe(true);
    expect(await svc.sessions.isOpen(a, 'mallory')).toBe(false);
    expect(await svc.sessions.isOpen('forged', 'olivia')).toBe(false);
    expect(await bullpen.redis.ttl(bullpen.keys.tagged('auth', 'session', a))).toBeGreaterThan(11 * 3600);

    await svc.sessions.close(a);
    expect(await svc.sessions.isOpen(a, 'olivia')).toBe(false);
    expect(await svc.sessions.isOpen(b, 'olivia')).toBe(true);

    await svc.users.setRole('olivia', 'viewer');
    expect(await svc.sessions.isOpen(b, 'olivia')).toBe(false);
    const c = await svc.sessions.open('olivia');
    await svc.users.setPassword('olivia', 'another-pass-2');
    expect(await svc.sessions.isOpen(c, 'olivia')).toBe(false);
    const d = await svc.sessions.open('olivia');
    await svc.users.remove('olivia');
    expect(await svc.sessions.isOpen(d, 'olivia')).toBe(false);
  });

  it("answers for many sessions in one round trip, as the live streams' re-check asks", async () => {
    bullpen = testBullpen(server.redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys);
    await svc.users.create({ username: 'olivia', role: 'operator', password: 'operator-pass-1' });
    await svc.users.create({ username: 'peter', role: 'viewer', password: 'viewer-pass-1' });
    const a = await svc.sessions.open('olivia');
    const b = await svc.sessions.open('peter');
    const asked = [
      { sid: a, username: 'olivia' },
      { sid: 'forged', username: 'olivia' },
      { sid: b, username: 'peter' },
      { sid: a, username: 'peter' },
    ];
    expect(await svc.sessions.openMany(asked)).toEqual([true, false, true, false]);
    await svc.users.setRole('peter', 'operator');
    expect(await svc.sessions.openMany(asked)).toEqual([true, false, false, false]);
    expect(await svc.sessions.openMany([])).toEqual([]);
  });
});

describe('session secret', () => {
  it('uses SESSION_SECRET when set, else generates one 0600 file and reuses it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-secret-'));
    expect(await resolveSessionSecret({ SESSION_SECRET: 's'.repeat(32), dataDir: dir })).toBe('s'.repeat(32));
    // Many starting at once (dashboard processes on one host): all get the same secret, none sees a half-written file.
    const [a, ...rest] = await Promise.all(Array.from({ length: 16 }, () => resolveSessionSecret({ dataDir: dir })));
    for (const b of rest) expect(b).toBe(a);
    expect((await readdir(dir)).sort()).toEqual(['session-secret']);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect((await stat(path.join(dir, 'session-secret'))).mode & 0o777).toBe(0o600);
    expect(await resolveSessionSecret({ dataDir: dir })).toBe(a);
  });
});
