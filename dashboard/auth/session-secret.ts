import 'server-only';
import type { Config } from '@/lib/config';
import { fileSecret } from '@/lib/fs/file-secret';

/**
 * The key that seals session cookies: SESSION_SECRET when set (config enforces ≥ 32
 * characters), otherwise a random one generated once into `<dataDir>/session-secret`
 * (mode 0600), so sessions survive restarts and every dashboard process on the host
 * agrees (lib/fs/file-secret.ts).
 */
export async function resolveSessionSecret(config: Pick<Config, 'SESSION_SECRET' | 'dataDir'>): Promise<string> {
  return config.SESSION_SECRET ?? fileSecret(config.dataDir, 'session-secret');
}
