import { afterEach, describe, expect, it } from 'vitest';
import { TEST_JOBS } from '../helpers/test-jobs';
import { createBullpen, type Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { createDashboardMetrics } from '@/dashboard/health/health-metrics';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { freePort } from '@/lib/redis/embedded-server';
import { startWorkerProcess, type RunningWorker } from '@/lib/runtime/worker-process';
import { uniquePrefix } from '../helpers/redis';
import { useOutageRedis } from '../helpers/redis-outage';

/*
 * docs/observability.md, "Redis restarts": with redis-server killed, and with it hung
 * (SIGSTOP), the worker's /metrics and the dashboard's /api/metrics registry answer
 * within 1 s, with redis_up 0 and the Redis-reading gauges left out.
 */
const SCRAPE_BOUND_MS = 1_000;
/** Past the queue-depth (1 s) and health-report (2 s) caches, which a scrape may serve while they last. */
const CACHES_MS = 2_100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const value = (body: string, series: string) => {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('metrics through a Redis outage', () => {
  const redis = useOutageRedis();
  let worker: RunningWorker | undefined;
  let dashboard: Bullpen | undefined;
  afterEach(async () => {
    // A hung server is resumed first: the worker's shutdown talks to Redis.
    redis.resume();
    await worker?.stop(2_000);
    worker = undefined;
    await dashboard?.close();
    dashboard = undefined;
  });

  async function start() {
    const prefix = uniquePrefix('metrics-outage');
    const metricsPort = await freePort();
    const env = { LOG_LEVEL: 'silent', METRICS_PORT: String(metricsPort), WORKER_TYPES: 'sync', BULLPEN_HISTORY: '0' };
    const target = { host: '127.0.0.1', port: redis.port };
    worker = await startWorkerProcess({
      jobs: TEST_JOBS,
      handlers: { sync: async () => 'ok' },
      config: loadConfig(env),
      redis: target,
      prefix,
      logger: silentLogger,
      maintenance: false,
    });
    dashboard = createBullpen({ jobs: TEST_JOBS, config: loadConfig(env), redis: target, prefix, logger: silentLogger });
    await readyClient(dashboard.redis);
    const dashboardMetrics = createDashboardMetrics(dashboard);
    const scrapeWorker = async () => {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      return { status: res.status, body: await res.text(), ms: performance.now() - started };
    };
    const scrapeDashboard = async () => {
      const started = performance.now();
      const { body } = await dashboardMetrics.render();
      return { status: 200, body, ms: performance.now() - started };
    };
    return { scrapeWorker, scrapeDashboard };
  }

  function expectAnsweredWithoutRedis(scrape: { status: number; body: string; ms: number }) {
    expect(scrape.status).toBe(200);
    expect(scrape.ms).toBeLessThan(SCRAPE_BOUND_MS);
    expect(value(scrape.body, 'bullpen_redis_up')).toBe(0);
    // What the process has is still there; what Redis holds is left out, and counted.
    expect(scrape.body).toContain('# TYPE bullpen_worker_jobs_total counter');
    expect(scrape.body).not.toMatch(/^bullpen_worker_queue_depth\{/m);
    expect(scrape.body).not.toMatch(/^bullpen_worker_dlq_size /m);
    expect(value(scrape.body, 'bullpen_scrape_errors_total{gauge="redis_up"}')).toBeGreaterThanOrEqual(1);
    expect(value(scrape.body, 'bullpen_scrape_errors_total{gauge="dlq_size"}')).toBeGreaterThanOrEqual(1);
  }

  it('answer 200 within 1 s with redis_up 0 while redis-server is killed, and report it up again after', async () => {
    const { scrapeWorker, scrapeDashboard } = await start();
    for (const before of [await scrapeWorker(), await scrapeDashboard()]) {
      expect(before.status).toBe(200);
      expect(value(before.body, 'bullpen_redis_up')).toBe(1);
      expect(value(before.body, 'bullpen_worker_dlq_size')).toBe(0);
    }

    await redis.kill();
    await sleep(CACHES_MS);
    // Twice each: the second scrape meets a connection already reconnecting.
    for (let i = 0; i < 2; i++) {
      expectAnsweredWithoutRedis(await scrapeWorker());
      expectAnsweredWithoutRedis(await scrapeDashboard());
    }

    await redis.restart();
    await readyClient(worker!.bullpen.redis, 15_000);
    await readyClient(dashboard!.redis, 15_000);
    expect(value((await scrapeWorker()).body, 'bullpen_redis_up')).toBe(1);
    expect(value((await scrapeDashboard()).body, 'bullpen_redis_up')).toBe(1);
  });

  it('answer 200 within 1 s with redis_up 0 while redis-server hangs (SIGSTOP)', async () => {
    const { scrapeWorker, scrapeDashboard } = await start();
    expect(value((await scrapeWorker()).body, 'bullpen_redis_up')).toBe(1);

    redis.hang();
    await sleep(CACHES_MS);
    // In parallel too: two Prometheus replicas scraping both processes at once.
    const scrapes = await Promise.all([scrapeWorker(), scrapeDashboard(), scrapeWorker(), scrapeDashboard()]);
    for (const s of scrapes) expectAnsweredWithoutRedis(s);
    expectAnsweredWithoutRedis(await scrapeWorker());

    redis.resume();
    expect(value((await scrapeWorker()).body, 'bullpen_redis_up')).toBe(1);
    expect(value((await scrapeDashboard()).body, 'bullpen_redis_up')).toBe(1);
  });
});
