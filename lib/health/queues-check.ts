import type { RedisClient } from '../redis/connection';
import type { CheckOutcome, QueueSource } from './check-outcome';
import { waitingAgeStatus, worstStatus, type WaitingAgeThresholds } from './health-rules';
import { readOldestWaiting } from './oldest-waiting';

/**
 * The age of each queue's longest-waiting job against the thresholds. A paused
 * queue's jobs wait because an operator chose so: they are reported, not judged.
 */
export async function checkQueues(
  redis: RedisClient,
  queues: QueueSource,
  types: readonly string[],
  thresholds: WaitingAgeThresholds,
  now: number,
): Promise<CheckOutcome> {
  const snapshots = await Promise.all(types.map((type) => readOldestWaiting(redis, queues.get(type))));
  const perQueue: Record<string, { waiting: number; oldestWaitingMs: number | null; paused: boolean }> = {};
  const statuses = types.map((type, i) => {
    const s = snapshots[i];
    const ageMs = s.oldestReadyAt === null ? null : Math.max(0, now - s.oldestReadyAt);
    perQueue[type] = { waiting: s.waiting, oldestWaitingMs: ageMs, paused: s.paused };
    return s.paused ? 'healthy' : waitingAgeStatus(ageMs, thresholds);
  });
  const ages = Object.values(perQueue)
    .filter((q) => !q.paused && q.oldestWaitingMs !== null)
    .map((q) => q.oldestWaitingMs as number);
  return {
    status: worstStatus(statuses),
    details: {
      degradedAfterMs: thresholds.degradedMs,
      unhealthyAfterMs: thresholds.unhealthyMs,
      oldestWaitingMs: ages.length > 0 ? Math.max(...ages) : null,
      queues: perQueue,
    },
  };
}
