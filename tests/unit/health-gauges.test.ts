import { describe, expect, it } from 'vitest';
import type { HealthReport } from '@/lib/health/health-status';
import { healthGauges } from '@/lib/metrics/health-gauges';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';

const at = '2025-06-01T12:00:00.000Z';
const report = (workers: Record<string, unknown>, queues: Record<string, unknown>): HealthReport => ({
  status: 'degraded',
  checkedAt: at,
  checks: [
    { name: 'redis', status: 'healthy', latencyMs: 0.4, details: { pingMs: 0.4 }, checkedAt: at },
    { name: 'workers', status: 'degraded', latencyMs: 1, details: workers, checkedAt: at },
    { name: 'queues', status: 'degraded', latencyMs: 1, details: queues, checkedAt: at },
  ],
});

describe('healthGauges', () => {
  it('reads workers and the oldest wait per queue; no ready job is 0, a paused queue has no age', () => {
    const r = report(
      { minWorkers: 1, workers: { 'webhook-dispatch': 2, 'quota-check': 0 } },
      {
        queues: {
          'webhook-dispatch': { waiting: 5, oldestWaitingMs: 412_000, paused: false },
          'quota-check': { waiting: 0, oldestWaitingMs: null, paused: false },
          'index-optimization': { waiting: 3, oldestWaitingMs: 9_000_000, paused: true },
        },
      },
    );
    expect(healthGauges(r)).toEqual([
      { type: 'webhook-dispatch', workers: 2, oldestWaitingSeconds: 412 },
      { type: 'quota-check', workers: 0, oldestWaitingSeconds: 0 },
    ]);
  });

  it('leaves out what the report does not know: CLIENT LIST refused, a check that failed', () => {
    const r = report({ reason: 'client-list-unavailable', minWorkers: 1, queues: 2 }, { reason: 'timeout', timeLimitMs: 2000 });
    expect(healthGauges(r)).toEqual([]);
  });

  it('WorkerMetrics exports them as queue_workers and queue_oldest_waiting_seconds under the prefix', async () => {
    const r = report(
      { workers: { 'webhook-dispatch': 0 } },
      { queues: { 'webhook-dispatch': { waiting: 1, oldestWaitingMs: 1500, paused: false } } },
    );
    const { body } = await new WorkerMetrics('acme_', undefined, undefined, async () => r).render();
    expect(body).toContain('acme_worker_queue_workers{type="webhook-dispatch"} 0');
    expect(body).toContain('acme_worker_queue_oldest_waiting_seconds{type="webhook-dispatch"} 1.5');
    // Without a health source the gauges are declared but carry no samples.
    const bare = (await new WorkerMetrics('acme_').render()).body;
    expect(bare).toContain('# TYPE acme_worker_queue_workers gauge');
    expect(bare).not.toMatch(/^acme_worker_queue_workers\{/m);
  });
});
