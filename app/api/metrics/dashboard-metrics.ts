import 'server-only';
import { getBullpen } from '@/lib/bullpen-singleton';
import { createQueueDepthSource } from '@/lib/metrics/queue-depth';
import { WorkerMetrics } from '@/lib/metrics/worker-metrics';

const holder = globalThis as typeof globalThis & { __bullpenDashboardMetrics?: WorkerMetrics };

/**
 * The dashboard's metrics registry: the worker metrics' names and labels, with queue
 * depth read from Redis at scrape time (`getJobCounts`, O(1) per state, reused for 1 s
 * across concurrent scrapes) and the pending DLQ size. This process runs no jobs, so
 * the job counters and histograms carry no samples here; the worker's own port serves
 * those. One instance per process (on `globalThis`, which survives dev reloads), so
 * the depth cache is shared.
 */
export function dashboardMetrics(): WorkerMetrics {
  if (!holder.__bullpenDashboardMetrics) {
    const bullpen = getBullpen();
    holder.__bullpenDashboardMetrics = new WorkerMetrics(
      bullpen.config.METRICS_PREFIX,
      createQueueDepthSource({ queues: bullpen.queues, logger: bullpen.logger }),
      () => bullpen.dlq.pendingCount(),
    );
  }
  return holder.__bullpenDashboardMetrics;
}
