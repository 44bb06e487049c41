import { describe, expect, it, vi } from 'vitest';
import { SignInService } from '@/dashboard/auth/sign-in';
import type { User } from '@/dashboard/auth/user-store';
import type { Reservation } from '@/dashboard/auth/rate-limiter';
import type { RedisClient } from '@/lib/redis/connection';
import { Keyspace } from '@/lib/redis/keys';
import { AppError } from '@/lib/errors/app-error';

const alice = { username: 'alice', role: 'operator' } as unknown as User;

/**
 * The service around its limiter and user store, both replaced: what sign-in.ts decides
 * (the order of the steps, the refusals' words) without Redis or scrypt. The limiter's
 * and the store's own rules have their tests (auth-rate-limiter, auth-users).
 */
function service(
  reservation: Reservation,
  verify: (name: string, password: string) => Promise<User | undefined>,
  hashing?: { limit: number; maxWaiting: number },
) {
  const svc = new SignInService({} as RedisClient, new Keyspace('t'), { hashing });
  const calls: string[] = [];
  vi.spyOn(svc.limiter, 'reserve').mockImplementation(async (name, client) => (calls.push(`reserve ${name} ${client}`), reservation));
  vi.spyOn(svc.limiter, 'release').mockImplementation(async (name, client) => void calls.push(`release ${name} ${client}`));
  vi.spyOn(svc.limiter, 'withdraw').mockImplementation(async (name, client) => void calls.push(`withdraw ${name} ${client}`));
  vi.spyOn(svc.users, 'verifyCredentials').mockImplementation(
    async (name, password) => (calls.push(`verify ${name}`), verify(name, password)),
  );
  return { svc, calls };
}

const refusal = async (r: Reservation) =>
  service(r, async () => alice)
    .svc.signIn('alice', 'pw', '10.0.0.1')
    .catch((e: unknown) => e);

describe('SignInService (dashboard/auth/sign-in.ts)', () => {
  it('checks the trimmed, lower-cased name and releases the reservation on success', async () => {
    const { svc, calls } = service({ allowed: true, clean: true }, async (name, password) =>
      name === 'alice' && password === 'pw' ? alice : undefined,
    );
    expect(await svc.signIn('  Alice ', 'pw', '10.0.0.1')).toBe(alice);
    expect(calls).toEqual(['reserve alice 10.0.0.1', 'verify alice', 'release alice 10.0.0.1']);
    expect(svc.sessions).toBe(svc.users.sessions);
  });

  it('answers a wrong password with one message and keeps the reservation as a failure', async () => {
    const { svc, calls } = service({ allowed: true, clean: false }, async () => undefined);
    await expect(svc.signIn('alice', 'nope', '10.0.0.1')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'Wrong user name or password',
    });
    expect(calls).toEqual(['reserve alice 10.0.0.1', 'verify alice']);
  });

  it('refuses a capped attempt before any password check, saying whose cap and how long', async () => {
    const { svc, calls } = service({ allowed: false, scope: 'pair', retryAfterMs: 1 }, async () => alice);
    const err = await svc.signIn('alice', 'pw', '10.0.0.1').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many failed sign-ins for this name from your address. Try again in 1 second.',
      details: { retryAfterMs: 1, scope: 'pair' },
    });
    expect(calls).toEqual(['reserve alice 10.0.0.1']);
    expect(await refusal({ allowed: false, scope: 'client', retryAfterMs: 1_001 })).toMatchObject({
      message: 'Too many failed sign-ins from your address. Try again in 2 seconds.',
    });
    expect(await refusal({ allowed: false, scope: 'global', retryAfterMs: 119_000 })).toMatchObject({
      message: 'Too many failed sign-ins on this dashboard; sign-in is paused for everyone. Try again in 119 seconds.',
    });
    expect(await refusal({ allowed: false, scope: 'pair', retryAfterMs: 120_000 })).toMatchObject({
      message: 'Too many failed sign-ins for this name from your address. Try again in 2 minutes.',
    });
    expect(await refusal({ allowed: false, scope: 'pair', retryAfterMs: 15 * 60_000 + 1 })).toMatchObject({
      message: 'Too many failed sign-ins for this name from your address. Try again in 16 minutes.',
    });
    expect(await refusal({ allowed: false, scope: 'pair', retryAfterMs: 0 })).toMatchObject({
      message: expect.stringMatching(/Try again in 1 second\.$/),
    });
  });

  it('withdraws the reservation of an attempt refused as busy, which did no hashing; a clean client goes ahead of a failing one', async () => {
    let finish!: (u: User) => void;
    const held = new Promise<User>((resolve) => {
      finish = resolve;
    });
    const { svc, calls } = service({ allowed: true, clean: false }, () => held, { limit: 1, maxWaiting: 1 });
    const first = svc.signIn('alice', 'pw', '10.0.0.1');
    const waiting = svc.signIn('bob', 'pw', '10.0.0.2').catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    // A third attempt while one runs and one waits: a failing client is refused as busy.
    const busy = await svc.signIn('carol', 'pw', '10.0.0.3').catch((e: unknown) => e);
    expect(busy).toMatchObject({ code: 'RATE_LIMITED', message: 'Sign-in is busy right now. Try again in a moment.' });
    expect(calls).toContain('withdraw carol 10.0.0.3');
    expect(calls.filter((c) => c.startsWith('verify'))).toEqual(['verify alice']);

    // A clean client takes the waiting failing one's place.
    vi.spyOn(svc.limiter, 'reserve').mockResolvedValue({ allowed: true, clean: true });
    const clean = svc.signIn('dave', 'pw', '10.0.0.4');
    expect(await waiting).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/busy/) });
    finish(alice);
    await expect(first).resolves.toBe(alice);
    await expect(clean).resolves.toBe(alice);
    expect(calls).toContain('withdraw bob 10.0.0.2');
    expect(calls).not.toContain('withdraw alice 10.0.0.1');
  });

  it('passes on an error of the password check, other than busy, without withdrawing', async () => {
    const { svc, calls } = service({ allowed: true, clean: true }, async () => Promise.reject(new Error('redis down')));
    await expect(svc.signIn('alice', 'pw', '10.0.0.1')).rejects.toThrow('redis down');
    expect(calls).toEqual(['reserve alice 10.0.0.1', 'verify alice']);
    // An AppError other than the busy refusal: the check may have hashed, the reservation stays.
    const other = service({ allowed: true, clean: true }, async () => Promise.reject(new AppError('UNAVAILABLE', 'Redis is away')));
    await expect(other.svc.signIn('alice', 'pw', '10.0.0.1')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(other.calls).toEqual(['reserve alice 10.0.0.1', 'verify alice']);
  });

  it('runs two password checks at once by default and lets eight wait', async () => {
    let finish!: (u: User) => void;
    const held = new Promise<User>((resolve) => {
      finish = resolve;
    });
    const { svc, calls } = service({ allowed: true, clean: false }, () => held);
    const admitted = Array.from({ length: 10 }, (_, i) => svc.signIn(`u${i}`, 'pw', '10.0.0.1'));
    await new Promise((r) => setImmediate(r));
    expect(calls.filter((c) => c.startsWith('verify'))).toHaveLength(2);
    await expect(svc.signIn('u10', 'pw', '10.0.0.1')).rejects.toMatchObject({ message: expect.stringMatching(/busy/) });
    finish(alice);
    expect(await Promise.all(admitted)).toHaveLength(10);
  });
});
