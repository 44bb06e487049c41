import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import { createQueueDepthSource } from '@/lib/metrics/queue-depth';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';

/**
 * The dashboard's Prometheus registry: the worker metrics' names and labels (prefix
 * `bullpen.metricsPrefix`), with queue depth of every job type read from Redis at scrape time
 * (`getJobCounts`, O(1) per state, reused for 1 s across concurrent scrapes) and the
 * pending DLQ size, plus the health checker's workers and oldest wait per handled queue
 * (so "no worker on a queue" is still reported when every worker process is down).
 * This process runs no jobs, so the job counters and the duration histogram carry no
 * samples here; the worker's own port serves those. Make one per process so the depth
 * cache is shared.
 */
export function createDashboardMetrics(
  bullpen: Pick<Bullpen, 'metricsPrefix' | 'queues' | 'logger' | 'dlq' | 'health' | 'redis'>,
): WorkerMetrics {
  return new WorkerMetrics(
    bullpen.metricsPrefix,
    createQueueDepthSource({ queues: bullpen.queues, logger: bullpen.logger }),
    () => bullpen.dlq.pendingCount(),
    () => bullpen.health.check(),
    { redis: bullpen.redis },
  );
}
