import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { readyClient } from '@/lib/redis/connection';
import { startWorkerProcess, type RunningWorker } from '@/lib/runtime/worker-process';
import { capturingLogger } from '../helpers/capturing-logger';
import { uniquePrefix } from '../helpers/redis';
import { useOutageRedis } from '../helpers/redis-outage';
import { TEST_JOBS, TEST_SCHEDULES } from '../helpers/test-jobs';

/*
 * docs/observability.md, "Redis restarts": a 30 s outage wrote 1,205 lines with stacks
 * (40/s, 66 ECONNREFUSED per queue). Now a process logs one line when Redis is lost, one
 * when it is back with the duration, and at most one summary line per interval between.
 * Here the interval is 1 s and the outage 6 s: the same ratio of summaries to outage as
 * a 180 s outage at the default 30 s.
 */
const SUMMARY_MS = 1_000;
const OUTAGE_MS = 6_000;
/** Every queue of the test table, `tidy` with its schedule. */
const TYPES = TEST_JOBS.map((j) => j.name);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the log through a Redis outage', () => {
  const redis = useOutageRedis();
  let worker: RunningWorker | undefined;
  afterEach(async () => {
    await worker?.stop(2_000);
    worker = undefined;
  });

  it('one line when Redis is lost, one when it is back, and at most one summary per interval, without stacks', async () => {
    const { logger, lines } = capturingLogger();
    const config = loadConfig({
      LOG_LEVEL: 'info',
      WORKER_TYPES: TYPES.join(','),
      BULLPEN_OUTAGE_SUMMARY_MS: String(SUMMARY_MS),
    });
    worker = await startWorkerProcess({
      jobs: TEST_JOBS,
      schedules: TEST_SCHEDULES,
      handlers: Object.fromEntries(TYPES.map((t) => [t, async () => 'ok'])),
      config,
      redis: { host: '127.0.0.1', port: redis.port },
      prefix: uniquePrefix('outage-log'),
      logger,
      metricsServer: false,
      maintenance: false,
    });
    const before = lines.length;
    await redis.kill();
    await sleep(OUTAGE_MS);
    await redis.restart();
    await readyClient(worker.bullpen.redis, 15_000);
    const deadline = Date.now() + 15_000;
    while (!lines.some((l) => l.msg === 'Redis back')) {
      if (Date.now() > deadline) throw new Error('no "Redis back" line');
      await sleep(50);
    }
    await sleep(500);

    const outage = lines.slice(before);
    const lost = outage.filter((l) => l.msg.startsWith('Redis lost'));
    const back = outage.filter((l) => l.msg === 'Redis back');
    const summaries = outage.filter((l) => l.msg === 'Redis still unreachable');
    expect(lost).toHaveLength(1);
    expect(back).toHaveLength(1);
    expect(back[0].downForMs).toBeGreaterThanOrEqual(OUTAGE_MS);
    expect(back[0].errors).toBeGreaterThan(TYPES.length);
    expect(summaries.length).toBeLessThanOrEqual(Math.floor(back[0].downForMs / SUMMARY_MS));
    for (const s of summaries) expect(s.errors).toBeGreaterThan(0);
    // Nothing else at warn or above while Redis was away, and no stack anywhere.
    const loud = outage.filter((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal');
    expect(loud.map((l) => l.msg)).toEqual([lost[0].msg, ...summaries.map((s) => s.msg)]);
    expect(JSON.stringify(outage)).not.toMatch(/"stack"/);
    expect(outage.length).toBeLessThanOrEqual(2 + summaries.length + TYPES.length);
  });
});
