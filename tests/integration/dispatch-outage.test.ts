import { afterEach, describe, expect, it } from 'vitest';
import { TEST_JOBS } from '../helpers/test-jobs';
import { createBullpen, type Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { isAppError } from '@/lib/errors/app-error';
import { classifyError } from '@/lib/errors/classify';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { freePort } from '@/lib/redis/embedded-server';
import { uniquePrefix } from '../helpers/redis';
import { useOutageRedis } from '../helpers/redis-outage';

/*
 * docs/producers.md, "During a Redis outage": a dispatch answers within
 * BULLPEN_DISPATCH_TIMEOUT_MS with REDIS_UNAVAILABLE (retryable), whether the producer
 * was connected when Redis went away or started while it was gone.
 */
const BOUND_MS = 1_000;
/** What the bound may overrun by on a loaded 2-core machine: timers and a promise chain, no I/O. */
const SLACK_MS = 750;
const slack = { channelId: 'C1' };

describe('dispatch through a Redis outage', () => {
  const redis = useOutageRedis();
  const open: Bullpen[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });

  function producer(port = redis.port): Bullpen {
    const b = createBullpen({
      jobs: TEST_JOBS,
      config: loadConfig({ LOG_LEVEL: 'silent', BULLPEN_DISPATCH_TIMEOUT_MS: String(BOUND_MS) }),
      redis: { host: '127.0.0.1', port },
      prefix: uniquePrefix('dispatch-outage'),
      logger: silentLogger,
    });
    open.push(b);
    return b;
  }

  async function timedFailure(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
    const started = performance.now();
    const err = await p.then(
      () => new Error('the dispatch succeeded during the outage'),
      (e: unknown) => e,
    );
    return { err, ms: performance.now() - started };
  }

  function expectRedisUnavailable(err: unknown, maybeApplied: boolean) {
    expect(isAppError(err), String(err)).toBe(true);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE', status: 503, details: { retryable: true, maybeApplied, timeoutMs: BOUND_MS } });
    expect(classifyError(err).retryable).toBe(true);
  }

  it('a connected producer fails within the bound once Redis is killed, and dispatches again when it is back', async () => {
    const b = producer();
    await readyClient(b.redis);
    await b.dispatcher.dispatch('sync', slack);
    await redis.kill();
    const { err, ms } = await timedFailure(b.dispatcher.dispatch('sync', slack));
    expectRedisUnavailable(err, false);
    expect((err as Error).message).toMatch(/unreachable.*not sent/);
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);

    await redis.restart();
    await readyClient(b.redis, 10_000);
    const r = await b.dispatcher.dispatch('sync', slack);
    expect(await b.queues.get('sync').getJob(r.jobId)).toBeDefined();
  });

  it('a producer started while Redis is down fails within the bound instead of waiting for it', async () => {
    const nothing = await freePort();
    const b = producer(nothing);
    const { err, ms } = await timedFailure(b.dispatcher.dispatch('sync', slack));
    expectRedisUnavailable(err, false);
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
    // A bulk dispatch too.
    const bulk = await timedFailure(b.dispatcher.dispatchBulk([{ type: 'sync', data: slack }]));
    expectRedisUnavailable(bulk.err, false);
    expect(bulk.ms).toBeLessThan(BOUND_MS + SLACK_MS);
  });

  it('a connected producer fails within the bound while Redis hangs (SIGSTOP), saying the job may still be added', async () => {
    const b = producer();
    await readyClient(b.redis);
    await b.dispatcher.dispatch('sync', slack);
    redis.hang();
    const { err, ms } = await timedFailure(b.dispatcher.dispatch('sync', slack));
    expectRedisUnavailable(err, true);
    expect((err as Error).message).toMatch(/may still be applied/);
    expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);
  });
});
