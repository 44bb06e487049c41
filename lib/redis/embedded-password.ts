import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where the embedded redis-server's password lives, beside its data. */
export function embeddedPasswordFile(dataDir: string): string {
  return path.join(dataDir, 'redis-password');
}

/**
 * The embedded redis-server's `requirepass`: generated once into the data directory
 * (mode 0600) and reused, so any local process other than Bullpen's own (which reads it
 * from there) is refused. Undefined when there is none yet and `create` is false.
 */
export function embeddedRedisPassword(dataDir: string, create = false): string | undefined {
  const file = embeddedPasswordFile(dataDir);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!create) return undefined;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const password = randomBytes(24).toString('base64url');
  try {
    // wx: of two processes starting at once, one writes and the other reads its file.
    writeFileSync(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return embeddedRedisPassword(dataDir, false);
    throw err;
  }
  chmodSync(file, 0o600);
  return password;
}
