import type { RedisClient } from '../redis/connection';
import { readClientNames, workersOf } from '../redis/client-list';
import type { CheckOutcome, QueueSource } from './check-outcome';
import { queuesBelowMinimum, workersStatus } from './health-rules';

/**
 * Connected workers per queue, from one CLIENT LIST (per node) matched against the
 * connection names BullMQ gives every Worker, as its `getWorkers()` does per queue.
 * Managed Redis services that forbid CLIENT LIST make the count unknowable: that is
 * reported as degraded with a reason, never as an error, so a probe does not flap on a
 * setting.
 */
export async function checkWorkers(
  redis: RedisClient,
  queues: QueueSource,
  types: readonly string[],
  minWorkers: number,
): Promise<CheckOutcome> {
  const clients = await readClientNames(redis);
  if (!clients) {
    return { status: 'degraded', details: { reason: 'client-list-unavailable', minWorkers, queues: types.length } };
  }
  const counts = types.map((type) => workersOf(clients, queues.get(type)).length);
  const perQueue = Object.fromEntries(types.map((t, i) => [t, counts[i]]));
  return {
    status: workersStatus(perQueue, minWorkers),
    details: {
      minWorkers,
      workers: perQueue,
      total: counts.reduce((a, b) => a + b, 0),
      belowMinimum: queuesBelowMinimum(perQueue, minWorkers),
    },
  };
}
