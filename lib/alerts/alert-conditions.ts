import type { AlertRules, RuleName } from './alert-rules';

/** What the evaluating worker read from Redis in one round (alert-observer.ts). */
export interface AlertObservation {
  /** Pending dead letters; null when the read failed. */
  pendingDeadLetters: number | null;
  /** Dead letters of each critical type within the rule's window. */
  criticalDeadLetters: Array<{ type: string; count: number }>;
  /** Jobs of each type that finished over the failure-rate window. */
  finished: Array<{ type: string; completed: number; failed: number }>;
  /** Each handled queue: its connected workers (null: unknowable) and how long its oldest ready job waited (null: none). */
  queues: Array<{ type: string; workers: number | null; oldestWaitingMs: number | null }>;
}

/** A rule that holds now, for one subject (a queue) or for the whole system. */
export interface AlertCondition {
  /** `rule` or `rule:subject`: one alert per key. */
  key: string;
  rule: RuleName;
  /** The queue concerned, when there is one. */
  queue?: string;
  /** The measure that crossed the threshold (a count, a percentage, seconds). */
  value: number;
  /** One readable line. */
  summary: string;
  /** The dashboard path that shows the evidence. */
  path: string;
}

const q = (type: string) => `/queues/${encodeURIComponent(type)}`;

/**
 * Which rules hold for `obs`. Pure, so the thresholds are tested without Redis. Redis
 * reachability is not here: the observation itself could not be read without it (see
 * AlertEngine).
 */
export function evaluateConditions(rules: AlertRules, obs: AlertObservation): AlertCondition[] {
  const out: AlertCondition[] = [];
  const dl = rules.deadLetters;
  if (dl.enabled && obs.pendingDeadLetters !== null && obs.pendingDeadLetters >= dl.threshold) {
    out.push({
      key: 'deadLetters',
      rule: 'deadLetters',
      value: obs.pendingDeadLetters,
      summary: `${obs.pendingDeadLetters} dead letters are waiting (threshold ${dl.threshold})`,
      path: '/dead-letters?status=pending',
    });
  }
  if (rules.criticalDeadLetter.enabled) {
    for (const { type, count } of obs.criticalDeadLetters) {
      if (count <= 0) continue;
      out.push({
        key: `criticalDeadLetter:${type}`,
        rule: 'criticalDeadLetter',
        queue: type,
        value: count,
        summary: `${count} ${type} job${count === 1 ? '' : 's'} dead-lettered in the last ${rules.criticalDeadLetter.windowMinutes} min (critical type)`,
        path: `/dead-letters?type=${encodeURIComponent(type)}`,
      });
    }
  }
  const fr = rules.failureRate;
  if (fr.enabled) {
    for (const { type, completed, failed } of obs.finished) {
      const total = completed + failed;
      if (total < fr.minFinished) continue;
      const percent = (failed / total) * 100;
      if (percent <= fr.percent) continue;
      out.push({
        key: `failureRate:${type}`,
        rule: 'failureRate',
        queue: type,
        value: Math.round(percent * 10) / 10,
        summary: `${type}: ${failed} of ${total} jobs failed for good in the last ${fr.minutes} min (${percent.toFixed(1)}% > ${fr.percent}%)`,
        path: `${q(type)}?state=failed`,
      });
    }
  }
  for (const { type, workers, oldestWaitingMs } of obs.queues) {
    if (rules.noWorkers.enabled && workers === 0) {
      out.push({
        key: `noWorkers:${type}`,
        rule: 'noWorkers',
        queue: type,
        value: 0,
        summary: `No worker serves ${type}`,
        path: '/workers',
      });
    }
    const limitMs = rules.oldestWaiting.seconds * 1_000;
    if (rules.oldestWaiting.enabled && oldestWaitingMs !== null && oldestWaitingMs > limitMs) {
      const s = Math.round(oldestWaitingMs / 1_000);
      out.push({
        key: `oldestWaiting:${type}`,
        rule: 'oldestWaiting',
        queue: type,
        value: s,
        summary: `${type}: a ready job has waited ${s} s (limit ${rules.oldestWaiting.seconds} s)`,
        path: `${q(type)}?state=waiting`,
      });
    }
  }
  return out;
}
