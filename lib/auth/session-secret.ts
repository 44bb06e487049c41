import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';

/**
 * The key that seals session cookies: SESSION_SECRET when set (config enforces ≥ 32
 * characters), otherwise a random one generated once into `<dataDir>/session-secret`
 * (mode 0600), so sessions survive restarts and every dashboard process on the host
 * agrees. Several processes starting at once: `wx` lets one create it, the rest read.
 */
export async function resolveSessionSecret(config: Pick<Config, 'SESSION_SECRET' | 'dataDir'>): Promise<string> {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  const file = path.join(config.dataDir, 'session-secret');
  const existing = await readSecret(file);
  if (existing) return existing;
  await mkdir(config.dataDir, { recursive: true });
  try {
    await writeFile(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = await readSecret(file);
  if (!secret) throw new Error(`${file} holds fewer than 32 characters; delete it or set SESSION_SECRET`);
  return secret;
}

async function readSecret(file: string): Promise<string | undefined> {
  try {
    const s = (await readFile(file, 'utf8')).trim();
    return s.length >= 32 ? s : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
