import type { Logger } from '../logging/logger';
import type { WorkerMetrics } from '../metrics/worker-metrics';

export type AlertReason = 'critical_dead_letter' | 'dlq_threshold' | 'final_failure' | 'quota_violation' | 'webhook_disabled';

export interface Alert {
  reason: AlertReason;
  message: string;
  /** The job type concerned, when there is one. */
  type?: string;
  fields?: Record<string, unknown>;
}

/**
 * Where alerts go: an error-level log line with `alert: true` (what a log pipeline
 * pages on) and a counter (what Prometheus alert rules fire on). One seam, so adding
 * a pager later touches one file.
 */
export class Alerter {
  constructor(
    private readonly logger: Logger,
    private metrics?: WorkerMetrics,
  ) {}

  /** Counts alerts in a process's metrics from now on (the worker's, once it has them). */
  countInto(metrics: WorkerMetrics): void {
    this.metrics = metrics;
  }

  raise(alert: Alert): void {
    this.logger.error({ alert: true, reason: alert.reason, jobType: alert.type, ...alert.fields }, alert.message);
    this.metrics?.alertsTotal.inc({ reason: alert.reason, type: alert.type ?? '' });
  }
}
