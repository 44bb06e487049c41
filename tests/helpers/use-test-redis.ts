import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Bullpen, BullpenOptions } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { makeBullpen } from './make-bullpen';
import { startTestRedis } from './redis';

export interface TestRedis {
  /** The file's redis-server; started in beforeAll, stopped in afterAll. */
  readonly redis: EmbeddedRedis;
  /** A Bullpen on it under a unique prefix (shipped job table unless `jobs` is given), closed after the test. */
  bullpen(overrides?: Partial<BullpenOptions> & { env?: Record<string, string> }): Bullpen;
  /** The same, once its connection is ready (the producer connection has no offline queue). */
  readyBullpen(overrides?: Partial<BullpenOptions> & { env?: Record<string, string> }): Promise<Bullpen>;
}

/**
 * One redis-server per test file, started and stopped by the hooks this registers, and
 * Bullpens on it that are closed after each test: the setup every integration test
 * needs, written once. Call it at the top of a file or a describe block.
 */
export function useTestRedis(): TestRedis {
  let server: EmbeddedRedis | undefined;
  const open = new Set<Bullpen>();
  beforeAll(async () => {
    server = await startTestRedis();
  });
  afterEach(async () => {
    await Promise.all([...open].map((b) => b.close()));
    open.clear();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const t: TestRedis = {
    get redis() {
      if (!server) throw new Error('useTestRedis: the redis-server starts in beforeAll; read it inside a hook or a test');
      return server;
    },
    bullpen(overrides = {}) {
      const b = makeBullpen(t.redis, overrides);
      open.add(b);
      return b;
    },
    async readyBullpen(overrides = {}) {
      const b = t.bullpen(overrides);
      await readyClient(b.redis);
      return b;
    },
  };
  return t;
}
