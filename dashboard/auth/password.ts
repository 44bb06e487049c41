import 'server-only';
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * scrypt cost: N=2^15, r=8, p=1 (OWASP's minimum for scrypt) takes ~50-100 ms and
 * 32 MiB per hash — slow enough to hurt guessing, fast enough for a sign-in.
 */
const PARAMS = { N: 1 << 15, r: 8, p: 1 } as const;
const KEY_LEN = 32;
/** Node's default maxmem (32 MiB) is exactly 128·N·r and scrypt refuses it; give headroom. */
const MAX_MEM = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 10;

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { ...PARAMS, maxmem: MAX_MEM });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time comparison of `password` against a stored hash; a malformed hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 1 << 20) return false;
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  if (expected.length === 0) return false;
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: MAX_MEM * 4 });
  return timingSafeEqual(actual, expected);
}

/** A random password of `bytes` bytes of entropy, URL-safe (the generated first admin's). */
export function generatePassword(bytes = 18): string {
  return randomBytes(bytes).toString('base64url');
}
