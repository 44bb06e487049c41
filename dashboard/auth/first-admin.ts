import 'server-only';
import { mkdir, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import type { Bullpen } from '@/lib/bullpen';
import { isAppError } from '@/lib/errors/app-error';
import { readyClient } from '@/lib/redis/connection';
import { generatePassword } from './password';
import { UserStore } from './user-store';

export interface FirstAdminResult {
  /** True only in the process that created the admin: print the password once. */
  created: boolean;
  username?: string;
  password?: string;
  /** Where the password was written (mode 0600). */
  file?: string;
}

export const FIRST_ADMIN_NAME = 'admin';

/**
 * With no dashboard users at all, creates `admin` with a generated password, writes
 * it to `<dataDir>/admin-password` (mode 0600) and returns it so the start script can
 * print it once. With any user present it does nothing. Two processes racing both
 * call create; the atomic create lets exactly one win.
 */
export async function ensureFirstAdmin(bullpen: Pick<Bullpen, 'redis' | 'keys' | 'config'>): Promise<FirstAdminResult> {
  // The producer connection has no offline queue: a command before it is ready fails.
  await readyClient(bullpen.redis);
  const users = new UserStore(bullpen.redis, bullpen.keys);
  if ((await users.count()) > 0) return { created: false };
  const password = generatePassword();
  try {
    await users.create({ username: FIRST_ADMIN_NAME, role: 'admin', password });
  } catch (err) {
    if (isAppError(err) && err.code === 'CONFLICT') return { created: false };
    throw err;
  }
  const file = path.join(bullpen.config.dataDir, 'admin-password');
  await mkdir(bullpen.config.dataDir, { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  // writeFile keeps an existing file's mode; make sure an old file is not left readable.
  await chmod(file, 0o600);
  return { created: true, username: FIRST_ADMIN_NAME, password, file };
}
