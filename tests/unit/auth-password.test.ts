import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from '@/dashboard/auth/password';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { safeNextPath } from '@/app/sign-in/safe-next-path';

/*
 * Each hash and verify here is a real scrypt at the production cost (N=2^15, 32 MiB,
 * dashboard/auth/password.ts): about 100 ms on an idle core, many times that when the
 * unit project runs beside the integration suite (tests/integration/app/add-job-type.test.ts
 * runs it) on a busy 2-core machine. The unit project's 5 s default is for logic that
 * waits on nothing; these tests do CPU-bound work by design, so they get their own limit.
 */
const SCRYPT_TEST_MS = 60_000;

describe('password hashing (scrypt)', { timeout: SCRYPT_TEST_MS }, () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('salts each hash, so equal passwords give different hashes', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('never verifies against a malformed or hostile stored hash', async () => {
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$0$8$1$c2FsdA==$aGFzaA==')).toBe(false);
    // An absurd cost parameter is refused rather than burning CPU and memory.
    expect(await verifyPassword('x', `scrypt$${2 ** 24}$8$1$c2FsdA==$aGFzaA==`)).toBe(false);
    expect(await verifyPassword('x', 'scrypt$16$8$1$c2FsdA==$')).toBe(false);
  });

  it('generates long random passwords', () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(generatePassword()).not.toBe(a);
  });
});

describe('roles and redirects', () => {
  it('orders viewer < operator < admin', () => {
    expect(roleAtLeast('admin', 'operator')).toBe(true);
    expect(roleAtLeast('operator', 'operator')).toBe(true);
    expect(roleAtLeast('viewer', 'operator')).toBe(false);
    expect(roleAtLeast('operator', 'admin')).toBe(false);
  });

  it('only redirects to same-site paths after sign-in', () => {
    expect(safeNextPath('/queues/x?state=failed')).toBe('/queues/x?state=failed');
    expect(safeNextPath('//evil.example')).toBe('/');
    expect(safeNextPath('/\\evil.example')).toBe('/');
    expect(safeNextPath('https://evil.example')).toBe('/');
    expect(safeNextPath(undefined)).toBe('/');
  });
});

describe('password hashing: the stored format and its checks', { timeout: SCRYPT_TEST_MS }, () => {
  /** A stored hash with cheap parameters, made the way the format says: scrypt$N$r$p$salt$key. */
  async function cheapHash(password: string, N = 1024, r = 8, p = 1): Promise<string> {
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync(password, salt, 32, { N, r, p });
    return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  it('stores a 16-byte salt and a 32-byte key', async () => {
    const parts = (await hashPassword('correct horse battery')).split('$');
    expect(parts).toHaveLength(6);
    expect(Buffer.from(parts[4], 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5], 'base64')).toHaveLength(32);
  });

  it('verifies with the parameters stored beside the hash, so they can be raised later', async () => {
    const stored = await cheapHash('old password 1');
    expect(await verifyPassword('old password 1', stored)).toBe(true);
    expect(await verifyPassword('old password 2', stored)).toBe(false);
  });

  it('refuses each malformed part', async () => {
    const good = await cheapHash('pw-0123456789');
    const [, N, r, p, salt, key] = good.split('$');
    const variants = [
      `bcrypt$${N}$${r}$${p}$${salt}$${key}`,
      `scrypt$${N}$${r}$${p}$${salt}$${key}$extra`,
      `scrypt$${N}$${r}$${p}$${salt}`,
      `scrypt$1024.5$${r}$${p}$${salt}$${key}`,
      `scrypt$${N}$0$${p}$${salt}$${key}`,
      `scrypt$${N}$${r}$-1$${salt}$${key}`,
      `scrypt$${N}$x$${p}$${salt}$${key}`,
      `scrypt$${2 ** 21}$${r}$${p}$${salt}$${key}`,
      `scrypt$${N}$${r}$${p}$${salt}$`,
    ];
    for (const v of variants) expect(await verifyPassword('pw-0123456789', v), v).toBe(false);
    expect(await verifyPassword('pw-0123456789', good)).toBe(true);
  });

  it('generates 18 random bytes by default, or as many as asked, URL-safe', async () => {
    const { MIN_PASSWORD_LENGTH } = await import('@/dashboard/auth/password');
    expect(MIN_PASSWORD_LENGTH).toBe(10);
    expect(Buffer.from(generatePassword(), 'base64url')).toHaveLength(18);
    expect(Buffer.from(generatePassword(3), 'base64url')).toHaveLength(3);
    expect(generatePassword(30)).toMatch(/^[A-Za-z0-9_-]{40}$/);
  });
});

describe('roles', () => {
  it('each role may do what the ones below it may, and nothing above', async () => {
    const { ROLES, roleSchema } = await import('@/dashboard/auth/roles');
    expect(ROLES).toEqual(['viewer', 'operator', 'admin']);
    const table = ROLES.map((role) => ROLES.map((min) => roleAtLeast(role, min)));
    expect(table).toEqual([
      [true, false, false],
      [true, true, false],
      [true, true, true],
    ]);
    expect(roleSchema.safeParse('owner').success).toBe(false);
  });

  it('describes in words what each role adds (ROLE_GRANTS, exported for display)', async () => {
    const { ROLE_GRANTS } = await import('@/dashboard/auth/roles');
    expect(ROLE_GRANTS.viewer).toMatch(/read/);
    expect(ROLE_GRANTS.operator).toMatch(/retry, replay/);
    expect(ROLE_GRANTS.admin).toMatch(/manage users/);
  });
});
