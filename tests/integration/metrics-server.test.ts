import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { AppError } from '@/lib/errors/app-error';
import { HttpError } from '@/lib/errors/http-error';
import { HealthChecker } from '@/lib/health/health-checker';
import { PRIORITY } from '@/lib/jobs/priority';
import { silentLogger } from '@/lib/logging/logger';
import { MetricsServer } from '@/lib/metrics/metrics-server';
import { createQueueDepthSource } from '@/lib/metrics/queue-depth';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import type { JobHandler } from '@/lib/runtime/handler';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';

const TOKEN = 'scrape-token-0123456789abcdef';
const TYPE: string = 'notify';
const data = { webhookId: 'w1', event: 'order.created', payload: { id: 1 } };

const sink: DeadLetterSink = {
  async record(input: DeadLetterInput) {
    return { id: `${input.queue}/${input.jobId}`, created: true };
  },
};

/** Prometheus text → `name{a="1",b="2"}` (labels sorted) → value. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = (m[2] ?? '').match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g) ?? [];
    out.set(`${m[1]}{${labels.sort().join(',')}}`, Number(m[3]));
  }
  return out;
}
const series = (name: string, labels: Record<string, string> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')}}`;

describe('the worker’s metrics server', () => {
  const redis = useTestRedis();
  let bullpen: Bullpen;
  let server: MetricsServer | undefined;
  let pool: WorkerPool | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await pool?.close(5_000);
    pool = undefined;
    await bullpen?.close();
  });

  async function serve(opts: { prefix?: string; token?: string; env?: Record<string, string> } = {}) {
    bullpen = testBullpen(redis.redis, { handledTypes: [TYPE], env: opts.env });
    // The prefix as the worker takes it: the application's (the runtime's `bullpen_` for the test table) unless the test names one.
    const metrics = new WorkerMetrics(opts.prefix ?? bullpen.metricsPrefix, createQueueDepthSource({ queues: bullpen.queues, ttlMs: 0 }));
    server = new MetricsServer({
      metrics,
      health: bullpen.health,
      config: bullpen.config,
      port: 0,
      token: opts.token,
      logger: silentLogger,
    });
    const port = await server.start();
    const url = (path: string) => `http://127.0.0.1:${port}${path}`;
    return { metrics, port, url };
  }

  async function startPool(metrics: WorkerMetrics, handler: JobHandler) {
    pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: { [TYPE]: handler },
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
      metrics,
    });
    await pool.start();
  }

  it('serves the four required metrics with their names, labels and buckets, and real queue depth', async () => {
    const { metrics, url } = await serve();

    // Depth straight from Redis: 3 ready (prioritized by the type's default) and 2
    // delayed; in another queue, one plain (waiting) job and one prioritized.
    for (let i = 0; i < 3; i++) await bullpen.dispatcher.dispatch(TYPE, data);
    for (let i = 0; i < 2; i++) await bullpen.dispatcher.dispatch(TYPE, data, { delayMs: 3_600_000 });
    const other = bullpen.queues.get('sync');
    await other.add('plain', { n: 1 }, { priority: 0 });
    await other.add('low', { n: 2 }, { priority: PRIORITY.LOW });

    const res = await fetch(url('/metrics'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    let text = await res.text();
    expect(text).toMatch(/^# TYPE bullpen_worker_jobs_total counter$/m);
    expect(text).toMatch(/^# TYPE bullpen_worker_jobs_active gauge$/m);
    expect(text).toMatch(/^# TYPE bullpen_worker_job_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE bullpen_worker_queue_depth gauge$/m);
    let m = parseMetrics(text);
    const depth = (type: string, state: string) => m.get(series('bullpen_worker_queue_depth', { type, state }));
    expect(depth(TYPE, 'prioritized')).toBe(3);
    expect(depth(TYPE, 'delayed')).toBe(2);
    expect(depth(TYPE, 'waiting')).toBe(0);
    expect(depth(TYPE, 'completed')).toBe(0);
    expect(depth('sync', 'waiting')).toBe(1);
    expect(depth('sync', 'prioritized')).toBe(1);
    expect(depth('erase', 'waiting')).toBe(0); // every job type is reported

    // Run the 3 ready jobs and a fourth that fails for good (400); one blocks so
    // jobs_active can be seen.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    await startPool(metrics, async (ctx) => {
      runs++;
      if (runs === 1) await gate;
      if ((ctx.data as { payload?: { fail?: boolean } }).payload?.fail) throw new HttpError(400, 'rejected');
      return { ok: true };
    });
    await bullpen.dispatcher.dispatch(TYPE, { ...data, payload: { fail: true } });
    const deadline = Date.now() + 15_000;
    const scrape = async () => parseMetrics(await (await fetch(url('/metrics'))).text());
    while ((m = await scrape()).get(series('bullpen_worker_jobs_active', { type: TYPE })) !== 1) {
      if (Date.now() > deadline) throw new Error('jobs_active never reached 1');
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    const total = (status: string) => m.get(series('bullpen_worker_jobs_total', { type: TYPE, status })) ?? 0;
    // The counters move inside the processor, the sets when BullMQ acknowledges: wait for both.
    const settled = () => total('completed') + total('failed') === 4 && depth(TYPE, 'completed') === 3 && depth(TYPE, 'failed') === 1;
    while (!settled()) {
      if (Date.now() > deadline) throw new Error(`jobs never finished: completed ${total('completed')}, failed ${total('failed')}`);
      await new Promise((r) => setTimeout(r, 50));
      m = await scrape();
    }
    expect(total('completed')).toBe(3);
    expect(total('retried')).toBe(0);
    expect(total('failed')).toBe(1);
    expect(m.get(series('bullpen_worker_jobs_active', { type: TYPE }))).toBe(0);
    const buckets = ['0.1', '0.5', '1', '5', '10', '30', '60', '300', '+Inf'];
    for (const le of buckets) expect(m.has(series('bullpen_worker_job_duration_seconds_bucket', { type: TYPE, le }))).toBe(true);
    text = await (await fetch(url('/metrics'))).text();
    const les = [...text.matchAll(/bullpen_worker_job_duration_seconds_bucket\{le="([^"]+)",type="notify"\}/g)].map((x) => x[1]);
    expect(les).toEqual(buckets);
    expect(m.get(series('bullpen_worker_job_duration_seconds_count', { type: TYPE }))).toBe(4);
    expect(depth(TYPE, 'completed')).toBe(3); // m is the latest scrape
    expect(depth(TYPE, 'failed')).toBe(1);
    expect(depth(TYPE, 'delayed')).toBe(2);
    expect(depth(TYPE, 'prioritized')).toBe(0);
  });

  it('uses a custom prefix', async () => {
    const { metrics, url } = await serve({ prefix: 'acme_' });
    metrics.jobsTotal.inc({ type: TYPE, status: 'completed' });
    await bullpen.dispatcher.dispatch(TYPE, data);
    const text = await (await fetch(url('/metrics'))).text();
    expect(text).not.toContain('bullpen_');
    const m = parseMetrics(text);
    expect(m.get(series('acme_worker_jobs_total', { type: TYPE, status: 'completed' }))).toBe(1);
    expect(m.get(series('acme_worker_queue_depth', { type: TYPE, state: 'prioritized' }))).toBe(1);
    expect(text).toMatch(/^# TYPE acme_worker_job_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE acme_worker_jobs_active gauge$/m);
  });

  it('serves /healthz: 200 with the report while healthy, 503 when unhealthy', async () => {
    const { metrics, url } = await serve();
    let res = await fetch(url('/healthz'));
    expect(res.status).toBe(503); // no worker on the handled queue yet
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    let body = await res.json();
    expect(body.status).toBe('unhealthy');
    expect(body.checks.find((c: { name: string }) => c.name === 'workers').details.workers).toEqual({ [TYPE]: 0 });

    await startPool(metrics, async () => ({}));
    const deadline = Date.now() + 5_000; // the report is cached for up to 2 s
    do {
      await new Promise((r) => setTimeout(r, 100));
      res = await fetch(url('/healthz'));
      body = await res.json();
      if (Date.now() > deadline) throw new Error(`never healthy: ${JSON.stringify(body)}`);
    } while (body.status !== 'healthy');
    expect(res.status).toBe(200);
    expect(body.checks.find((c: { name: string }) => c.name === 'workers').details.workers).toEqual({ [TYPE]: 1 });
  });

  it('requires the bearer token when one is configured (both endpoints)', async () => {
    const { url } = await serve({ env: { METRICS_TOKEN: TOKEN } });
    for (const path of ['/metrics', '/healthz']) {
      const none = await fetch(url(path));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="bullpen-worker"');
      const wrong = await fetch(url(path), { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const basic = await fetch(url(path), { headers: { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` } });
      expect(basic.status).toBe(401);
      const ok = await fetch(url(path), { headers: { authorization: `Bearer ${TOKEN}` } });
      expect([200, 503]).toContain(ok.status);
      if (path === '/metrics') expect(await ok.text()).toContain('bullpen_worker_queue_depth');
      else expect((await ok.json()).checks).toBeInstanceOf(Array);
    }
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    const { url } = await serve();
    expect((await fetch(url('/'))).status).toBe(404);
    expect((await fetch(url('/metrics/x'))).status).toBe(404);
    const post = await fetch(url('/metrics'), { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect((await fetch(url('/healthz'), { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(url('/metrics?x=1'))).status).toBe(200);
  });

  it('binds loopback by default, refuses a busy port and a short token with a clear error', async () => {
    const { port, metrics } = await serve();
    const health = new HealthChecker({ redis: bullpen.redis, queues: bullpen.queues, types: [TYPE] });
    const clash = new MetricsServer({ metrics, health, port });
    await expect(clash.start()).rejects.toThrow(new RegExp(`cannot listen on 127.0.0.1:${port}`));
    expect(() => new MetricsServer({ metrics, health, port: 0, token: 'short' })).toThrow(AppError);
    expect(() => new MetricsServer({ metrics, health, port: 70_000 })).toThrow(/port/);
  });

  it('reads queue depth once for concurrent scrapes', async () => {
    bullpen = testBullpen(redis.redis, { handledTypes: [TYPE] });
    await bullpen.dispatcher.dispatch(TYPE, data);
    const types: string[] = [TYPE, 'sync', 'erase'];
    const depth = createQueueDepthSource({ queues: bullpen.queues, types, ttlMs: 60_000 });
    const metrics = new WorkerMetrics('bullpen_', depth);
    await createQueueDepthSource({ queues: bullpen.queues, types, ttlMs: 0 })(); // load the Lua scripts
    await bullpen.redis.config('RESETSTAT');
    const bodies = await Promise.all(Array.from({ length: 10 }, () => metrics.render()));
    for (const { body } of bodies) {
      expect(parseMetrics(body).get(series('bullpen_worker_queue_depth', { type: TYPE, state: 'prioritized' }))).toBe(1);
    }
    const info = await bullpen.redis.info('commandstats');
    const evalshaCalls = Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
    expect(evalshaCalls).toBe(types.length); // one getJobCounts per queue for all 10 scrapes
  });
});
