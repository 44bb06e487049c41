import { randomBytes } from 'node:crypto';
import { type EmbeddedRedis, type EmbeddedRedisOptions, freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';

/** A throwaway redis-server on an ephemeral loopback port, for one test file. */
export async function startTestRedis(options: Omit<EmbeddedRedisOptions, 'port'> = {}): Promise<EmbeddedRedis> {
  return startEmbeddedRedis({ ...options, port: await freePort() });
}

/** A key prefix no other test shares. */
export function uniquePrefix(name = 't'): string {
  return `${name}-${randomBytes(4).toString('hex')}`;
}
