import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { HealthReport } from '@/lib/health/health-status';
import { RedisWatch } from '@/lib/health/redis-watch';
import { startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { readyClient } from '@/lib/redis/connection';
import { testBullpen } from '../helpers/test-bullpen';
import { startTestRedis } from '../helpers/redis';

/**
 * The dashboard's Redis watch against a real redis-server that is stopped (SIGSTOP: it
 * keeps its sockets and answers nothing) and killed: the outage banner of docs/dashboard.md
 * has to show within 5 s, so the watch must know within 2.5 s, and the health report must
 * say the same at once rather than after its own time limit.
 */

/** The watch's worst case (a PING sent just before the stop: interval + limit) and a margin for a loaded 2-core machine. */
const NOTICED_WITHIN_MS = 500 + 1_200 + 1_000;

async function until(what: string, ok: () => boolean, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!ok()) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - started;
}

const redisCheck = (r: HealthReport) => r.checks.find((c) => c.name === 'redis');

describe('RedisWatch and the health report during an outage', () => {
  let bullpen: Bullpen | undefined;
  let own: EmbeddedRedis | undefined;
  /** A Bullpen whose health checker reads a watch PINGing on its connection, as the dashboard builds them (dashboard/dashboard-process.ts). */
  function watched(redis: EmbeddedRedis): RedisWatch {
    const watch = new RedisWatch(async () => (await readyClient(b.redis, 1_100)).ping());
    const b = testBullpen(redis, { redisWatch: watch });
    bullpen = b;
    return watch;
  }

  afterEach(async () => {
    await bullpen?.close();
    await own?.stop();
    bullpen = undefined;
    own = undefined;
  });

  it('marks a SIGSTOPped Redis unreachable within 1.7 s, the report says since when at once, and both clear after SIGCONT', async () => {
    own = await startTestRedis();
    const pid = own.child?.pid;
    if (!pid) throw new Error('expected a redis-server this test started');
    const watch = watched(own);
    await until('reachable at start', () => watch.state().checkedAt > 0 && watch.state().reachable, 10_000);
    expect(redisCheck(await bullpen!.health.check())?.status).not.toBe('unhealthy');

    process.kill(pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    try {
      const took = await until('unreachable after SIGSTOP', () => !watch.state().reachable, NOTICED_WITHIN_MS);
      expect(took).toBeLessThan(NOTICED_WITHIN_MS);
      const since = watch.state().since;
      expect(since).toBeGreaterThanOrEqual(stoppedAt);
      const asked = Date.now();
      const report = await bullpen!.health.check();
      // No check waits for its 2 s limit: the watch already knows.
      expect(Date.now() - asked).toBeLessThan(500);
      expect(report.status).toBe('unhealthy');
      expect(redisCheck(report)).toMatchObject({ status: 'unhealthy', details: { reason: 'unreachable', since } });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until('reachable after SIGCONT', () => watch.state().reachable, NOTICED_WITHIN_MS);
    expect(redisCheck(await bullpen!.health.check())?.status).not.toBe('unhealthy');
  });

  it('marks a killed Redis unreachable at the next PING, and clears once a server answers on the port again', async () => {
    own = await startTestRedis();
    const port = own.port;
    const watch = watched(own);
    await until('reachable at start', () => watch.state().checkedAt > 0 && watch.state().reachable, 10_000);

    own.child?.kill('SIGKILL');
    await until('unreachable after kill', () => !watch.state().reachable, NOTICED_WITHIN_MS);
    expect(redisCheck(await bullpen!.health.check())).toMatchObject({ status: 'unhealthy', details: { reason: 'unreachable' } });

    own = await startEmbeddedRedis({ port });
    // ioredis reconnects with its backoff (up to 2 s between tries) before the PING can answer.
    await until('reachable after restart', () => watch.state().reachable, 15_000);
  });
});
