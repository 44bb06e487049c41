import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis, EmbeddedRedisOptions } from '@/lib/redis/embedded-server';
import { startTestRedis } from './redis';
import { type TestBullpenOptions, testBullpen } from './test-bullpen';

export interface TestRedis {
  /** The file's redis-server; started in beforeAll, stopped in afterAll. */
  readonly redis: EmbeddedRedis;
  /** A Bullpen on it under a unique prefix (testBullpen: the test table unless told), closed after the test. */
  bullpen(overrides?: TestBullpenOptions): Bullpen;
  /** The same, once its connection is ready (the producer connection has no offline queue). */
  readyBullpen(overrides?: TestBullpenOptions): Promise<Bullpen>;
}

/**
 * One redis-server per test file, started and stopped by the hooks this registers, and
 * Bullpens on it that are closed after each test: the setup every integration test
 * needs, written once. Call it at the top of a file or a describe block. `base` is every
 * Bullpen's starting options (an application's tests hand it their application);
 * `redisOptions`, the server's (a test that times Redis runs it in a session of its own).
 */
export function useTestRedis(base: TestBullpenOptions = {}, redisOptions: Omit<EmbeddedRedisOptions, 'port'> = {}): TestRedis {
  let server: EmbeddedRedis | undefined;
  const open = new Set<Bullpen>();
  beforeAll(async () => {
    server = await startTestRedis(redisOptions);
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
      const b = testBullpen(t.redis, { ...base, ...overrides });
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
