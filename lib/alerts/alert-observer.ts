import type { DeadLetterStore } from '../dlq/dead-letter-store';
import { readOldestWaiting } from '../health/oldest-waiting';
import type { JobCatalog } from '../jobs/job-catalog';
import type { QueueRegistry } from '../jobs/queues';
import type { RedisClient } from '../redis/connection';
import { readClientNames, workersOf } from '../redis/client-list';
import type { AlertObservation } from './alert-conditions';
import type { AlertRules } from './alert-rules';

export interface AlertObserverOptions {
  redis: RedisClient;
  queues: QueueRegistry;
  jobs: JobCatalog;
  dlq: DeadLetterStore;
}

/** BullMQ's per-minute metrics of one queue, as `queue.getMetrics` returns them. */
export interface MinuteMetrics {
  meta: { count: number; prevTS: number; prevCount: number };
  /** Completed minutes, newest first. */
  data: number[];
}

/**
 * Jobs counted over the last `minutes` from BullMQ's per-minute metrics: the minute of the
 * last recorded job (`count - prevCount`, not yet a data point) plus the data points that
 * still fall inside the window. Pure, with "now" passed in.
 */
export function countOverMinutes(m: MinuteMetrics, minutes: number, now: number): number {
  if (!m.meta.prevTS) return 0;
  const gap = Math.floor(now / 60_000) - Math.floor(m.meta.prevTS / 60_000);
  if (gap >= minutes) return 0;
  let n = Math.max(0, m.meta.count - m.meta.prevCount);
  for (let i = 0; i < minutes - gap - 1 && i < m.data.length; i++) n += m.data[i] ?? 0;
  return n;
}

/**
 * Reads what the rules compare, in a few O(1) or O(log n) calls per queue: the pending
 * dead letters (a ZCARD), each critical type's dead letters in the window (a ZCOUNT on
 * the DLQ's type index), BullMQ's per-minute completed and failed counts, one CLIENT
 * LIST for every queue's workers, and each queue's oldest ready job
 * (lib/health/oldest-waiting.ts). Which types are critical is the job table's word.
 */
export class AlertObserver {
  constructor(private readonly opts: AlertObserverOptions) {}

  async observe(rules: AlertRules, now: number): Promise<AlertObservation> {
    const { jobs, queues, redis, dlq } = this.opts;
    const types = jobs.names.filter((t) => jobs.handled.has(t));
    const critical = types.filter((t) => jobs.get(t).critical);
    const since = now - rules.criticalDeadLetter.windowMinutes * 60_000;
    const minutes = rules.failureRate.minutes;
    const [pending, criticalCounts, finished, clients, waiting] = await Promise.all([
      dlq.pendingCount(),
      Promise.all(critical.map(async (type) => ({ type, count: await dlq.countFailedSince(type, since) }))),
      Promise.all(
        types.map(async (type) => {
          const q = queues.get(type);
          const points = Math.min(minutes, 60);
          const [completed, failed] = await Promise.all([q.getMetrics('completed', 0, points - 1), q.getMetrics('failed', 0, points - 1)]);
          return { type, completed: countOverMinutes(completed, minutes, now), failed: countOverMinutes(failed, minutes, now) };
        }),
      ),
      readClientNames(redis),
      Promise.all(types.map((type) => readOldestWaiting(redis, queues.get(type)))),
    ]);
    return {
      pendingDeadLetters: pending,
      criticalDeadLetters: criticalCounts,
      finished,
      queues: types.map((type, i) => {
        const w = waiting[i];
        return {
          type,
          workers: clients ? workersOf(clients, queues.get(type)).length : null,
          oldestWaitingMs: w && !w.paused && w.oldestReadyAt !== null ? Math.max(0, now - w.oldestReadyAt) : null,
        };
      }),
    };
  }
}
