import { HEALTH_STATUSES, type HealthStatus } from './health-status';

/**
 * The threshold rules of the background-workers requirements (docs/requirements.md#background-workers) as pure functions: no I/O and no
 * clock, so each rule is unit-tested on its boundaries.
 */

const rank = (s: HealthStatus) => HEALTH_STATUSES.indexOf(s);

/** The worst of the statuses (healthy < degraded < unhealthy); none at all is healthy. */
export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  let worst: HealthStatus = 'healthy';
  for (const s of statuses) if (rank(s) > rank(worst)) worst = s;
  return worst;
}

/** A PING under `degradedMs` is healthy; a slower one is degraded (errors are unhealthy upstream). */
export function redisLatencyStatus(latencyMs: number, degradedMs: number): HealthStatus {
  return latencyMs < degradedMs ? 'healthy' : 'degraded';
}

/**
 * Every queue with at least `minWorkers` connected workers is healthy; no worker on any
 * queue is unhealthy (nothing will run); anything between is degraded. With
 * `minWorkers` 0 the check never fails, which is what a dashboard-only deployment wants.
 */
export function workersStatus(workersPerQueue: Record<string, number>, minWorkers: number): HealthStatus {
  const counts = Object.values(workersPerQueue);
  if (counts.every((n) => n >= minWorkers)) return 'healthy';
  if (counts.every((n) => n === 0)) return 'unhealthy';
  return 'degraded';
}

/** The queues below `minWorkers`, sorted, for the check's details. */
export function queuesBelowMinimum(workersPerQueue: Record<string, number>, minWorkers: number): string[] {
  return Object.entries(workersPerQueue)
    .filter(([, n]) => n < minWorkers)
    .map(([q]) => q)
    .sort();
}

export interface WaitingAgeThresholds {
  /** Older than this (ms) is degraded. */
  degradedMs: number;
  /** Older than this (ms) is unhealthy. */
  unhealthyMs: number;
}

/** `ageMs` null means nothing waits: healthy. The boundary itself stays on the better side. */
export function waitingAgeStatus(ageMs: number | null, t: WaitingAgeThresholds): HealthStatus {
  if (ageMs === null || ageMs <= t.degradedMs) return 'healthy';
  return ageMs <= t.unhealthyMs ? 'degraded' : 'unhealthy';
}

/** 0 pending dead letters is healthy, fewer than `threshold` degraded, `threshold` or more unhealthy. */
export function deadLetterStatus(pending: number, threshold: number): HealthStatus {
  if (pending <= 0) return 'healthy';
  return pending < threshold ? 'degraded' : 'unhealthy';
}
