import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { ensureFirstAdmin } from '@/lib/auth/first-admin';
import { resolveSessionSecret } from '@/lib/auth/session-secret';
import { SignInService } from '@/lib/auth/sign-in';
import { UserStore } from '@/lib/auth/user-store';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { makeBullpen } from '../helpers/bullpen';
import { startTestRedis } from '../helpers/redis';

let redis: EmbeddedRedis;
let bullpen: Bullpen;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  await bullpen?.close();
});

async function bullpenWithDataDir(): Promise<{ b: Bullpen; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-auth-'));
  return { b: makeBullpen(redis, { env: { BULLPEN_DATA_DIR: dir } }), dir };
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
    bullpen = makeBullpen(redis);
    const users = new UserStore(bullpen.redis, bullpen.keys);
    const u = await users.create({ username: 'Victor', role: 'viewer', password: 'viewer-pass-1' });
    expect(u).toMatchObject({ username: 'victor', role: 'viewer', sessionEpoch: 0 });
    await expect(users.create({ username: 'victor', role: 'admin', password: 'another-pass-1' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(users.create({ username: 'x', role: 'viewer', password: 'long-enough-1' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(users.create({ username: 'short', role: 'viewer', password: 'short' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(users.create({ username: 'kingly', role: 'king' as never, password: 'long-enough-1' })).rejects.toMatchObject({ code: 'VALIDATION' });
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

describe('sign-in rate limit', () => {
  it('locks a name after 5 failures even with the right password, and counts per IP across names', async () => {
    bullpen = makeBullpen(redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { max: 5, maxPerIp: 8, windowMs: 60_000 });
    await svc.users.create({ username: 'olivia', role: 'operator', password: 'operator-pass-1' });
    await svc.users.create({ username: 'victor', role: 'viewer', password: 'viewer-pass-1' });

    expect(await svc.signIn('olivia', 'operator-pass-1', '10.0.0.1')).toMatchObject({ username: 'olivia' });
    for (let i = 0; i < 5; i++) {
      await expect(svc.signIn('olivia', `guess-${i}`, `10.0.1.${i}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    }
    const limited = svc.signIn('olivia', 'operator-pass-1', '10.0.0.9');
    await expect(limited).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    await expect(limited).rejects.toThrow(/Try again in 1 minute/);
    const ttl = await bullpen.redis.pttl(bullpen.keys.tagged('auth', 'fail', 'user', 'olivia'));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    // One IP spraying several names is limited at maxPerIp; another IP still signs in.
    for (let i = 0; i < 8; i++) await expect(svc.signIn(`nobody${i}`, 'x-password', '10.9.9.9')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(svc.signIn('victor', 'viewer-pass-1', '10.9.9.9')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(await svc.signIn('victor', 'viewer-pass-1', '10.0.0.2')).toMatchObject({ username: 'victor' });
  });

  it('clears the name’s counter on success', async () => {
    bullpen = makeBullpen(redis);
    const svc = new SignInService(bullpen.redis, bullpen.keys, { max: 3, windowMs: 60_000 });
    await svc.users.create({ username: 'admin', role: 'admin', password: 'admin-pass-01' });
    await expect(svc.signIn('admin', 'nope-nope', '1.1.1.1')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(svc.signIn('admin', 'nope-nope', '1.1.1.2')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await svc.signIn('ADMIN ', 'admin-pass-01', '1.1.1.3');
    expect(await bullpen.redis.exists(bullpen.keys.tagged('auth', 'fail', 'user', 'admin'))).toBe(0);
  });
});

describe('session secret', () => {
  it('uses SESSION_SECRET when set, else generates one 0600 file and reuses it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-secret-'));
    expect(await resolveSessionSecret({ SESSION_SECRET: 's'.repeat(32), dataDir: dir })).toBe('s'.repeat(32));
    const [a, b] = await Promise.all([resolveSessionSecret({ dataDir: dir }), resolveSessionSecret({ dataDir: dir })]);
    expect(a).toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect((await stat(path.join(dir, 'session-secret'))).mode & 0o777).toBe(0o600);
    expect(await resolveSessionSecret({ dataDir: dir })).toBe(a);
  });
});
