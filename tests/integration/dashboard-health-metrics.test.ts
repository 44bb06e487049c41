import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { createDashboardMetrics } from '@/dashboard/health/health-metrics';
import { healthHttpStatus } from '@/dashboard/client/health-view';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const sample = (body: string, line: string) => body.split('\n').find((l) => l.startsWith(line));

describe('createDashboardMetrics', () => {
  it('exposes queue depth by state for every job type and the pending DLQ size, under the configured prefix', async () => {
    bullpen = testBullpen(server.redis, { env: { METRICS_PREFIX: 'acme_' } });
    const q = bullpen.queues.get('notify');
    await q.add('notify', { payload: {}, requestId: 'r1', dispatchedAt: 0 });
    await q.add('notify', { payload: {}, requestId: 'r2', dispatchedAt: 0 }, { delay: 60_000 });
    for (let i = 0; i < 3; i++) {
      await bullpen.dlq.record({
        queue: 'notify',
        jobId: `j${i}`,
        jobType: 'notify',
        jobData: { payload: {}, requestId: `r${i}`, dispatchedAt: 0 },
        error: { message: 'boom', errorClass: 'server' },
        attempts: 1,
        failedAt: 1_000 + i,
        source: 'runtime',
      });
    }
    const { contentType, body } = await createDashboardMetrics(bullpen).render();
    expect(contentType).toContain('text/plain');
    expect(sample(body, 'acme_worker_queue_depth{type="notify",state="prioritized"}')).toMatch(/ 1$/);
    expect(sample(body, 'acme_worker_queue_depth{type="notify",state="delayed"}')).toMatch(/ 1$/);
    expect(sample(body, 'acme_worker_queue_depth{type="tidy",state="waiting"}')).toMatch(/ 0$/);
    expect(sample(body, 'acme_worker_dlq_size')).toBe('acme_worker_dlq_size 3');
    // Every type and state appears, so dashboards never see a gap for an idle queue.
    expect(body.match(/^acme_worker_queue_depth\{/gm)).toHaveLength(bullpen.jobs.names.length * 7);
    // From the health checker: no worker runs here, and the prioritized job is the oldest waiting one.
    expect(sample(body, 'acme_worker_queue_workers{type="notify"}')).toMatch(/ 0$/);
    expect(Number(sample(body, 'acme_worker_queue_oldest_waiting_seconds{type="notify"}')?.split(' ')[1])).toBeGreaterThan(0);
  });

  it('the public health status code follows the checker’s overall status', async () => {
    bullpen = testBullpen(server.redis, { env: { HEALTH_MIN_WORKERS: '0' } });
    const summary = await bullpen.health.publicSummary();
    // No worker is required, Redis answers, nothing waits and the DLQ is empty.
    expect(summary.status).toBe('healthy');
    expect(healthHttpStatus(summary.status)).toBe(200);
    expect(JSON.stringify(summary)).not.toMatch(/latency|details|pingMs/);
  });
});
