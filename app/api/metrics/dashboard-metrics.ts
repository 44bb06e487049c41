import 'server-only';
import { getBullpen } from '@/app/_lib/bullpen';
import { createDashboardMetrics } from '@/lib/dashboard/health-metrics';
import type { WorkerMetrics } from '@/lib/metrics/worker-metrics';

const holder = globalThis as typeof globalThis & { __bullpenDashboardMetrics?: WorkerMetrics };

/** One registry per process (on `globalThis`, which survives dev reloads), so concurrent scrapes share the depth cache. */
export function dashboardMetrics(): WorkerMetrics {
  holder.__bullpenDashboardMetrics ??= createDashboardMetrics(getBullpen());
  return holder.__bullpenDashboardMetrics;
}
