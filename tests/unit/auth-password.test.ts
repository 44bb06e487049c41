import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from '@/lib/auth/password';
import { roleAtLeast } from '@/lib/auth/roles';
import { safeNextPath } from '@/app/sign-in/safe-next-path';

describe('password hashing (scrypt)', () => {
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
