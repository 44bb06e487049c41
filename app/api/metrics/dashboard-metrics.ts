import 'server-only';
import { processScoped } from '@/dashboard/dashboard-process';
import { createDashboardMetrics } from '@/dashboard/health/health-metrics';
import type { WorkerMetrics } from '@/lib/metrics/worker-metrics';

/** One registry per process, so concurrent scrapes share the depth cache. */
export function dashboardMetrics(): WorkerMetrics {
  return processScoped('metrics', createDashboardMetrics);
}
