import { describe, expect, it } from 'vitest';
import { SignInService } from '@/dashboard/auth/sign-in';
import type { AppError } from '@/lib/errors/app-error';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * Issue 21 item 3: 450 wrong attempts from 15 addresses paused sign-in for everyone,
 * though only a few passwords were hashed (busy refusals counted), and the real admin
 * was refused by the global cap. The caps bound hashing work, never an account
 * (docs/security.md, "Sign-in caps").
 */
const server = useTestRedis();
const ADMIN_PASSWORD = 'admin-pass-01';

type Outcome = { client: string; code: string; scope?: string };

/**
 * `perClient` wrong sign-ins from each of `clients` addresses, all at once, sprayed over
 * names (admin and others) so no per-name delay slows them: only the caps do.
 */
function attack(svc: SignInService, clients: string[], perClient: number): Promise<Outcome[]> {
  return Promise.all(
    clients.flatMap((client) =>
      Array.from({ length: perClient }, (_, i) =>
        svc.signIn(i === 0 ? 'admin' : `user${i}`, `wrong-${client}-${i}`, client).then(
          (): Outcome => ({ client, code: 'OK' }),
          (e: AppError): Outcome => ({ client, code: e.code, scope: (e.details as { scope?: string } | undefined)?.scope }),
        ),
      ),
    ),
  );
}

const addresses = (n: number) => Array.from({ length: n }, (_, i) => `198.51.100.${i + 1}`);

async function service(opts: ConstructorParameters<typeof SignInService>[2] = {}) {
  const bullpen = await server.readyBullpen();
  const svc = new SignInService(bullpen.redis, bullpen.keys, opts);
  await svc.users.create({ username: 'admin', role: 'admin', password: ADMIN_PASSWORD });
  const count = async (...parts: string[]) => Number((await bullpen.redis.get(bullpen.keys.tagged('auth', 'fail', ...parts))) ?? 0);
  return { svc, count };
}

describe('sign-in caps under a distributed attack', () => {
  it('the issue’s attack, 450 wrong attempts from 15 addresses; then the admin signs in from another address at once', async () => {
    const { svc } = await service();
    const outcomes = await attack(svc, addresses(15), 30);
    expect(outcomes.some((o) => o.code === 'OK')).toBe(false);
    const started = Date.now();
    expect(await svc.signIn('admin', ADMIN_PASSWORD, '203.0.113.200')).toMatchObject({ username: 'admin' });
    // One password check (~0.1 s idle), no waiting: the attack left nothing in its way.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a refusal that did no hashing never counts: the counters hold exactly the password checks', async () => {
    const { svc, count } = await service();
    let checked = 0;
    const verify = svc.users.verifyCredentials.bind(svc.users);
    svc.users.verifyCredentials = (n, p) => {
      checked++;
      return verify(n, p);
    };
    const outcomes = await attack(svc, addresses(15), 30);
    const busy = outcomes.filter((o) => o.scope === 'busy').length;
    expect(busy).toBeGreaterThan(0);
    const wrong = outcomes.filter((o) => o.code === 'UNAUTHENTICATED');
    expect(wrong).toHaveLength(checked);
    expect(await count('global')).toBe(checked);
    for (const client of addresses(15)) {
      expect(await count('client', client), client).toBe(wrong.filter((o) => o.client === client).length);
    }
  });

  it('past the global cap, clients that failed are refused and a clean client still signs in', async () => {
    const { svc, count } = await service({ limits: { globalMax: 12 }, hashing: { limit: 2, maxWaiting: 100 } });
    // One at a time, so every attempt is hashed and counted.
    for (const client of addresses(4)) for (let i = 0; i < 3; i++) await attack(svc, [client], 1);
    expect(await count('global')).toBe(12);
    const refused = await attack(svc, addresses(4), 1);
    expect(refused.map((o) => o.scope)).toEqual(['global', 'global', 'global', 'global']);
    // A failing attacker with the right password is refused too: the cap applies to whoever failed.
    await expect(svc.signIn('admin', ADMIN_PASSWORD, addresses(4)[0])).rejects.toMatchObject({ details: { scope: 'global' } });
    expect(await svc.signIn('admin', ADMIN_PASSWORD, '203.0.113.201')).toMatchObject({ username: 'admin' });
    // A fresh address that guesses wrong gets one check, then counts as a failing client.
    expect((await attack(svc, ['192.0.2.77'], 1))[0].code).toBe('UNAUTHENTICATED');
    expect((await attack(svc, ['192.0.2.77'], 1))[0].scope).toBe('global');
  });

  it('a clean client waits ahead of a flood and is never refused as busy by it', async () => {
    const { svc } = await service({ hashing: { limit: 1, maxWaiting: 4 } });
    // One failure each, so the flood's clients are not clean.
    for (const client of addresses(6)) await attack(svc, [client], 1);
    const flood = attack(svc, addresses(6), 2);
    const admin = svc.signIn('admin', ADMIN_PASSWORD, '203.0.113.202');
    expect(await admin).toMatchObject({ username: 'admin' });
    const outcomes = await flood;
    expect(outcomes.filter((o) => o.scope === 'busy').length).toBeGreaterThan(0);
  });
});
