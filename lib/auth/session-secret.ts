import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';

/**
 * The key that seals session cookies: SESSION_SECRET when set (config enforces ≥ 32
 * characters), otherwise a random one generated once into `<dataDir>/session-secret`
 * (mode 0600), so sessions survive restarts and every dashboard process on the host
 * agrees. Several processes starting at once: each writes its own temporary file and
 * links it into place, which only the first can do; so a reader never sees the file
 * created but not yet written.
 */
export async function resolveSessionSecret(config: Pick<Config, 'SESSION_SECRET' | 'dataDir'>): Promise<string> {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  const file = path.join(config.dataDir, 'session-secret');
  const existing = await readSecret(file);
  if (existing) return existing;
  await mkdir(config.dataDir, { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(draft, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(draft);
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
