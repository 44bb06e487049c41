import { afterEach, describe, expect, it } from 'vitest';
import { TEST_JOBS } from '../helpers/test-jobs';
import { createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { createRedis, FIRST_READY_WAIT_MS, readyClient, type RedisClient } from '@/lib/redis/connection';
import { uniquePrefix } from '../helpers/redis';
import { useOutageRedis } from '../helpers/redis-outage';

/*
 * The fail-fast (`producer`) connection used before its first `ready` failed with "Stream
 * isn't writeable and enableOfflineQueue options is false" (health.test.ts's ACL SETUSER
 * under load; in the product a dead letter's page, the session check of the web server, a
 * sign-out's audit entry, all on a connection that may still be opening). The gate is in
 * the connection now (lib/redis/connection.ts, holdUntilFirstReady).
 */
const SLACK_MS = 750;

describe('a producer connection before its first ready', () => {
  const redis = useOutageRedis();
  const open: RedisClient[] = [];
  afterEach(() => {
    for (const c of open.splice(0)) c.disconnect();
  });
  const producer = () => {
    const c = createRedis({ host: '127.0.0.1', port: redis.port }, 'producer');
    c.on('error', () => undefined);
    open.push(c);
    return c;
  };

  it('runs commands sent while it still opens, pipelines and MULTI included', async () => {
    const c = producer();
    expect(c.status).not.toBe('ready');
    const key = uniquePrefix('early');
    const [set, multi, piped] = await Promise.all([
      c.set(key, 'v'),
      c.multi().incr(`${key}:n`).incr(`${key}:n`).exec(),
      c.pipeline().get(key).exists(key).exec(),
    ]);
    expect(set).toBe('OK');
    expect(multi?.map(([err, n]) => [err, n])).toEqual([
      [null, 1],
      [null, 2],
    ]);
    expect(piped?.map(([, v]) => v)).toEqual(['v', 1]);
  });

  it('a Bullpen’s first command needs no readiness call (the ACL SETUSER of health.test.ts)', async () => {
    const b = createBullpen({
      jobs: TEST_JOBS,
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      redis: { host: '127.0.0.1', port: redis.port },
      prefix: uniquePrefix('early'),
      logger: silentLogger,
    });
    try {
      const user = `early-${b.keys.root}`;
      await b.redis.call('ACL', 'SETUSER', user, 'on', '>early-pass', '~*', '+@all');
      await b.redis.call('ACL', 'DELUSER', user);
    } finally {
      await b.close();
    }
  });

  it('fails a command within the wait when Redis is down at start, and never sends it once Redis is back', async () => {
    await redis.kill();
    const c = producer();
    const key = uniquePrefix('late');
    const started = performance.now();
    const err = await c.set(key, 'late').then(
      () => new Error('SET succeeded with Redis down'),
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/^Redis not ready after/);
    expect(performance.now() - started).toBeLessThan(FIRST_READY_WAIT_MS + SLACK_MS);

    await redis.restart();
    await readyClient(c, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await c.get(key)).toBeNull();
  });
});
