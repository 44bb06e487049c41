import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HealthReport } from '@/lib/health/health-status';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';
import type { RedisClient } from '@/lib/redis/connection';

const deploy = path.resolve(import.meta.dirname, '../../deploy');
const dashboard = JSON.parse(readFileSync(path.join(deploy, 'grafana/bullpen.json'), 'utf8')) as {
  panels: Array<{ id: number; title: string; datasource: { uid: string }; targets: Array<{ expr: string }> }>;
  templating: { list: Array<{ name: string; definition?: string }> };
};

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** The metric names a PromQL expression selects: identifiers that are not functions, keywords or labels. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\boffset\s+-?[0-9a-z]+/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const next = bare.slice((m.index ?? 0) + m[0].length).trimStart();
    if (!next.startsWith('(') && !PROMQL_WORDS.has(m[0])) names.push(m[0]);
  }
  return names;
}

/** Every sample name a worker with all its sources exports, from its own text output. */
async function exportedNames(): Promise<Set<string>> {
  const at = '2025-06-01T12:00:00.000Z';
  const report: HealthReport = {
    status: 'healthy',
    checkedAt: at,
    checks: [
      { name: 'workers', status: 'healthy', latencyMs: 1, details: { workers: { 'webhook-dispatch': 1 } }, checkedAt: at },
      {
        name: 'queues',
        status: 'healthy',
        latencyMs: 1,
        details: { queues: { 'webhook-dispatch': { waiting: 0, oldestWaitingMs: null, paused: false } } },
        checkedAt: at,
      },
    ],
  };
  const metrics = new WorkerMetrics(
    'ruvbot_',
    async () => [{ type: 'webhook-dispatch', counts: { waiting: 1 } }],
    async () => 0,
    async () => report,
    // A ready connection that answers PING: with one, the process also exports redis_up.
    { redis: { status: 'ready', ping: async () => 'PONG' } as unknown as RedisClient },
  );
  const stats = metrics.forType('webhook-dispatch');
  stats.completed = 2;
  stats.retried = 1;
  stats.failed = 1;
  stats.observe(0.3);
  metrics.alertsTotal.inc({ reason: 'critical_dead_letter', type: 'webhook-dispatch' });
  const { body } = await metrics.render();
  return new Set(
    body
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
  );
}

describe('deploy/grafana/bullpen.json', () => {
  it('every PromQL expression selects only metrics the worker exports', async () => {
    const exported = await exportedNames();
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, expr: t.expr })));
    const used = new Set<string>();
    for (const { panel, expr } of exprs) {
      const names = metricNames(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        expect(exported.has(name), `${panel}: ${name} is not exported`).toBe(true);
        used.add(name);
      }
    }
    // The variable's label_values() reads a metric too.
    for (const v of dashboard.templating.list) {
      const m = v.definition && /label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(v.definition);
      if (m) expect(exported.has(m[1]), `variable ${v.name}: ${m[1]}`).toBe(true);
    }
    // What the dashboard is for: throughput, failures, depth per state, DLQ, duration quantiles.
    for (const name of [
      'ruvbot_worker_jobs_total',
      'ruvbot_worker_queue_depth',
      'ruvbot_worker_dlq_size',
      'ruvbot_worker_job_duration_seconds_bucket',
    ]) {
      expect(used, name).toContain(name);
    }
    expect(exprs.some((e) => /histogram_quantile\(0\.95,/.test(e.expr))).toBe(true);
  });

  it('panels have unique ids and read the data source chosen in the variable', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal.
    const chosen = '${datasource}';
    for (const p of dashboard.panels) expect(p.datasource.uid, p.title).toBe(chosen);
  });

  it('the alert rules (deploy/prometheus/alerts.yml) name only exported metrics too', async () => {
    const exported = await exportedNames();
    const names = new Set(readFileSync(path.join(deploy, 'prometheus/alerts.yml'), 'utf8').match(/\bruvbot_[a-zA-Z0-9_:]+/g));
    expect(names.size).toBeGreaterThanOrEqual(5);
    for (const name of names) expect(exported.has(name), name).toBe(true);
  });

  it('the name extraction finds metrics and skips functions, labels and keywords', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (type, le) (rate(a_bucket{type=~"$type"}[$__rate_interval]))) / on (type) b unless c offset 5m',
      ),
    ).toEqual(['a_bucket', 'b', 'c']);
  });
});
