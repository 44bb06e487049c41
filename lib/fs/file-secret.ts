import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A random secret generated once into `<dir>/<name>` (mode 0600) and read back after:
 * it survives restarts and every process on the host agrees. Several processes starting
 * at once each write a temporary file and link it into place, which only the first can
 * do, so a reader never sees the file created but not yet written.
 */
export async function fileSecret(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  const existing = await readSecret(file);
  if (existing) return existing;
  await mkdir(dir, { recursive: true });
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
  if (!secret) throw new Error(`${file} holds fewer than 32 characters; delete it`);
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
