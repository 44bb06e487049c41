import { randomBytes } from 'node:crypto';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';

/** A throwaway redis-server on an ephemeral loopback port, for one test file. */
export async function startTestRedis(): Promise<EmbeddedRedis> {
  return startEmbeddedRedis({ port: await freePort() });
}

/** A key prefix no other test shares. */
export function uniquePrefix(name = 't'): string {
  return `${name}-${randomBytes(4).toString('hex')}`;
}
