import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '@/lib/config';
import { HttpError } from '@/lib/errors/http-error';
import { silentLogger } from '@/lib/logging/logger';
import { freePort } from '@/lib/redis/embedded-server';
import type { JobContext } from '@/lib/runtime/handler';
import type { RunningWorker } from '@/lib/runtime/worker-process';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { shippedApp } from '@/jobs/shipped-app';
import { useTestRedis } from '../../helpers/use-test-redis';

// The dashboard's real route handler, served from this process: `server-only` only guards the bundle.
vi.mock('server-only', () => ({}));

const DEPLOY = path.resolve(import.meta.dirname, '../../../deploy/prometheus');
const token = randomBytes(24).toString('hex');
const server = useTestRedis(shippedApp);

let tmp: string;
let worker: RunningWorker;
let workerPort: number;
let dashboard: Server;
let dashboardPort: number;
let prometheus: ChildProcess;
let promUrl: string;

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(q: string): Promise<Sample[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { status: string; data: { result: Sample[] }; error?: string };
  if (body.status !== 'success') throw new Error(`query ${q}: ${body.error}`);
  return body.data.result;
}

/** `{label value: number}` of a query's samples, keyed by one label. */
async function byLabel(q: string, label: string): Promise<Record<string, number>> {
  return Object.fromEntries((await query(q)).map((s) => [s.metric[label], Number(s.value[1])]));
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: timed out; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The shipped prometheus.yml with its two targets moved to this test's ports, plus two scrapes that must be refused. */
function testConfig(): string {
  let text = readFileSync(path.join(DEPLOY, 'prometheus.yml'), 'utf8');
  for (const [shipped, port] of [
    ['"127.0.0.1:9464"', workerPort],
    ['"127.0.0.1:3000"', dashboardPort],
  ] as const) {
    expect(text.split(shipped)).toHaveLength(2);
    text = text.replace(shipped, `"127.0.0.1:${port}"`);
  }
  return `${text}
  - job_name: wrong-token
    authorization:
      type: Bearer
      credentials_file: wrong-token
    static_configs:
      - targets: ["127.0.0.1:${workerPort}"]
  - job_name: no-token
    static_configs:
      - targets: ["127.0.0.1:${workerPort}"]
`;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'bullpen-prometheus-'));
  const bullpen = await server.readyBullpen();
  const prefix = bullpen.keys.root;

  // A worker process's runtime with its metrics server on, token required.
  workerPort = await freePort();
  worker = await startAppWorker(shippedApp, {
    config: loadConfig({ BULLPEN_DATA_DIR: '.data/test', LOG_LEVEL: 'silent', METRICS_TOKEN: token, METRICS_PORT: String(workerPort) }),
    redis: bullpen.target,
    prefix,
    logger: silentLogger,
    handlers: {
      'webhook-dispatch': async (ctx: JobContext) => {
        const { event } = ctx.data as { event: string };
        if (event === 'bad') throw new HttpError(400, 'rejected');
        if (event === 'flaky' && ctx.attempt === 1) throw new HttpError(503, 'unavailable');
        return 'ok';
      },
    },
    maintenance: false,
  });

  // The dashboard's GET /api/metrics on its own port, configured as `npm run web` would be.
  vi.stubEnv('REDIS_URL', server.redis.url);
  vi.stubEnv('BULLPEN_PREFIX', prefix);
  vi.stubEnv('BULLPEN_DATA_DIR', '.data/test');
  vi.stubEnv('METRICS_TOKEN', token);
  vi.stubEnv('LOG_LEVEL', 'silent');
  const { GET } = await import('@/app/api/metrics/route');
  dashboardPort = await freePort();
  dashboard = createServer((req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    GET(new Request(`http://127.0.0.1:${dashboardPort}${req.url}`, { headers }))
      .then(async (r) => {
        res.writeHead(r.status, Object.fromEntries(r.headers));
        res.end(await r.text());
      })
      .catch(() => res.writeHead(500).end());
  });
  dashboard.listen(dashboardPort, '127.0.0.1');
  await once(dashboard, 'listening');

  // Jobs: 3 complete, 1 completes on its second attempt, 1 fails for good (and is dead-lettered).
  const send = (event: string, attempts = 3) =>
    bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event, payload: {} }, { attempts });
  for (let i = 0; i < 3; i++) await send('ok');
  await send('flaky');
  await send('bad');
  const queue = bullpen.queues.get('webhook-dispatch');
  await until(
    'jobs finished',
    () => queue.getJobCounts('completed', 'failed'),
    (c) => c.completed === 4 && c.failed === 1,
  );

  // Debian's prometheus with the shipped files, on a free loopback port.
  writeFileSync(path.join(tmp, 'prometheus.yml'), testConfig());
  copyFileSync(path.join(DEPLOY, 'alerts.yml'), path.join(tmp, 'alerts.yml'));
  writeFileSync(path.join(tmp, 'bullpen-token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(path.join(tmp, 'wrong-token'), `${token.slice(1)}x\n`, { mode: 0o600 });
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${path.join(tmp, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(tmp, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  prometheus.stderr?.on('data', (d) => (stderr += d));
  prometheus.once('error', (err) => {
    stderr += `${err.message}: run \`bash scripts/system-deps.sh test\` to install prometheus\n`;
  });
  await until(
    `prometheus ready (${stderr})`,
    async () => (await fetch(`${promUrl}/-/ready`)).status,
    (s) => s === 200,
  ).catch((err) => {
    throw new Error(`${err.message}\n${stderr}`);
  });
});

afterAll(async () => {
  // Only what this file started, each by its own handle or PID.
  if (prometheus?.pid && prometheus.exitCode === null) {
    const exited = once(prometheus, 'exit');
    process.kill(prometheus.pid, 'SIGTERM');
    await exited;
  }
  await new Promise((r) => (dashboard ? dashboard.close(r) : r(undefined)));
  await worker?.stop(5_000);
  await (globalThis as { __bullpenDashboard?: { bullpen: { close(): Promise<void> } } }).__bullpenDashboard?.bullpen.close();
  vi.unstubAllEnvs();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Prometheus with the shipped deploy/prometheus files', () => {
  it('scrapes the worker and the dashboard with the token and counts the jobs that ran', async () => {
    const jobs = await until(
      'job counters scraped',
      () => byLabel('sum by (status) (ruvbot_worker_jobs_total{job="bullpen-worker",type="webhook-dispatch"})', 'status'),
      (v) => v.completed === 4,
    );
    expect(jobs).toEqual({ completed: 4, retried: 1, failed: 1 });
    // The same figures the worker counted in memory.
    const stats = worker.metrics.forType('webhook-dispatch');
    expect([stats.completed, stats.retried, stats.failed]).toEqual([4, 1, 1]);
    expect(await byLabel('ruvbot_worker_job_duration_seconds_count{type="webhook-dispatch"}', 'job')).toEqual({ 'bullpen-worker': 6 });

    // Both targets are up; the dashboard serves depth, DLQ size and the health gauges (no job counters).
    const up = await until(
      'both targets scraped',
      () => byLabel('up{job=~"bullpen-.*"}', 'job'),
      (v) => Object.keys(v).length === 2,
    );
    expect(up).toEqual({ 'bullpen-worker': 1, 'bullpen-dashboard': 1 });
    const depth = await until(
      'queue depth scraped from both',
      () => byLabel('ruvbot_worker_queue_depth{type="webhook-dispatch",state="completed"}', 'job'),
      (v) => Object.keys(v).length === 2,
    );
    expect(depth).toEqual({ 'bullpen-worker': 4, 'bullpen-dashboard': 4 });
    expect(await byLabel('ruvbot_worker_queue_depth{type="webhook-dispatch",state="failed"}', 'job')).toEqual({
      'bullpen-worker': 1,
      'bullpen-dashboard': 1,
    });
    expect(await byLabel('ruvbot_worker_dlq_size', 'job')).toEqual({ 'bullpen-worker': 1, 'bullpen-dashboard': 1 });
    expect(await byLabel('ruvbot_worker_queue_workers{type="webhook-dispatch"}', 'job')).toEqual({
      'bullpen-worker': 1,
      'bullpen-dashboard': 1,
    });
    expect(await query('ruvbot_worker_jobs_total{job="bullpen-dashboard"}')).toEqual([]);
  });

  it('a scrape with a wrong token or none is refused with 401', async () => {
    expect((await fetch(`http://127.0.0.1:${workerPort}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${dashboardPort}/api/metrics`)).status).toBe(401);
    const targets = await until(
      'refused scrapes reported',
      async () => {
        const res = await fetch(`${promUrl}/api/v1/targets?state=active`);
        const body = (await res.json()) as { data: { activeTargets: Array<{ scrapePool: string; health: string; lastError: string }> } };
        return body.data.activeTargets;
      },
      (ts) => ts.filter((t) => t.health !== 'unknown').length === 4,
    );
    const health = Object.fromEntries(targets.map((t) => [t.scrapePool, [t.health, t.lastError]]));
    expect(health['bullpen-worker']).toEqual(['up', '']);
    expect(health['bullpen-dashboard']).toEqual(['up', '']);
    expect(health['wrong-token'][0]).toBe('down');
    expect(health['wrong-token'][1]).toMatch(/401/);
    expect(health['no-token'][0]).toBe('down');
    expect(health['no-token'][1]).toMatch(/401/);
    expect(await byLabel('up{job=~"wrong-token|no-token"}', 'job')).toEqual({ 'wrong-token': 0, 'no-token': 0 });
  });

  it('loads the shipped alert rules and evaluates them on the live metrics', async () => {
    const res = await fetch(`${promUrl}/api/v1/rules?type=alert`);
    const body = (await res.json()) as { data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string }> }> } };
    const rules = body.data.groups.flatMap((g) => g.rules);
    // Every rule the file ships is loaded: the names are read from the file, not counted by hand.
    const shipped = [...readFileSync(path.join(DEPLOY, 'alerts.yml'), 'utf8').matchAll(/^\s*- alert: (\S+)/gm)].map((m) => m[1]);
    expect(shipped).toContain('BullpenRedisDown');
    expect(rules.map((r) => r.name).sort()).toEqual(shipped.sort());
    // The worker runs webhook-dispatch only: every other handled queue has no worker, and its alert is pending.
    const alerts = await until(
      'no-worker alert pending',
      async () => {
        const r = await fetch(`${promUrl}/api/v1/alerts`);
        const b = (await r.json()) as { data: { alerts: Array<{ labels: Record<string, string>; state: string }> } };
        return b.data.alerts.filter((a) => a.labels.alertname === 'BullpenQueueWithoutWorkers');
      },
      (a) => a.length > 0,
    );
    expect(alerts.every((a) => a.state === 'pending')).toBe(true);
    const types = alerts.map((a) => a.labels.type);
    expect(types).toContain('quota-check');
    expect(types).not.toContain('webhook-dispatch');
    expect(rules.every((r) => r.health !== 'err')).toBe(true);
    // Redis answers both processes here: their redis_up is 1, so BullpenRedisDown has nothing to say.
    expect(await byLabel('ruvbot_redis_up', 'job')).toEqual({ 'bullpen-worker': 1, 'bullpen-dashboard': 1 });
  });
});
