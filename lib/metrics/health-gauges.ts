import type { HealthReport } from '../health/health-status';

/** One queue's figures from a health report, for the gauges Prometheus alerts on. */
export interface QueueHealthSample {
  type: string;
  /** Connected BullMQ workers; absent when the count is unknown (CLIENT LIST refused, check failed). */
  workers?: number;
  /** Age of the longest-waiting ready job, 0 when none waits; absent for a paused queue or a failed check. */
  oldestWaitingSeconds?: number;
}

/**
 * Reads the health checker's per-queue details (the `workers` and `queues` checks) into
 * gauge samples. A figure the report does not carry is left out rather than reported
 * as 0: an absent series is the honest signal, and a 0 would page "no workers" when
 * Redis merely refused CLIENT LIST. A paused queue's wait is an operator's choice, so
 * its age is left out too.
 */
export function healthGauges(report: HealthReport): QueueHealthSample[] {
  const byType = new Map<string, QueueHealthSample>();
  const sample = (type: string) => {
    let s = byType.get(type);
    if (!s) {
      s = { type };
      byType.set(type, s);
    }
    return s;
  };
  const details = (name: string) => report.checks.find((c) => c.name === name)?.details ?? {};

  const workers = details('workers').workers;
  if (isRecord(workers)) {
    for (const [type, n] of Object.entries(workers)) if (typeof n === 'number') sample(type).workers = n;
  }
  const queues = details('queues').queues;
  if (isRecord(queues)) {
    for (const [type, q] of Object.entries(queues)) {
      if (!isRecord(q) || q.paused === true) continue;
      if (q.oldestWaitingMs === null) sample(type).oldestWaitingSeconds = 0;
      else if (typeof q.oldestWaitingMs === 'number') sample(type).oldestWaitingSeconds = q.oldestWaitingMs / 1000;
    }
  }
  return [...byType.values()];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
