import type { CheckOutcome, QueueSource } from './check-outcome';
import { queuesBelowMinimum, workersStatus } from './health-rules';

// BullMQ answers "unknown command 'client'" itself with this placeholder entry; an
// ACL-restricted user gets NOPERM, and some managed services reject the command.
const CLIENT_LIST_PLACEHOLDER = /does not support client list/i;
const CLIENT_LIST_REFUSED = /NOPERM|unknown command|not allowed|disabled|forbidden|no permissions/i;

class ClientListUnavailable extends Error {}

/**
 * Connected workers per queue, from BullMQ's `getWorkers()` (which parses CLIENT
 * LIST and matches the connection names BullMQ gives every Worker). Managed Redis
 * services that forbid CLIENT LIST make the count unknowable: that is reported as
 * degraded with a reason, never as an error, so a probe does not flap on a setting.
 */
export async function checkWorkers(queues: QueueSource, types: readonly string[], minWorkers: number): Promise<CheckOutcome> {
  let counts: number[];
  try {
    counts = await Promise.all(types.map((type) => countWorkers(queues, type)));
  } catch (err) {
    if (err instanceof ClientListUnavailable) {
      return { status: 'degraded', details: { reason: 'client-list-unavailable', minWorkers, queues: types.length } };
    }
    throw err;
  }
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

async function countWorkers(queues: QueueSource, type: string): Promise<number> {
  let workers: Array<Record<string, string>>;
  try {
    workers = await queues.get(type).getWorkers();
  } catch (err) {
    if (CLIENT_LIST_REFUSED.test((err as Error)?.message ?? '')) throw new ClientListUnavailable();
    throw err;
  }
  if (workers.some((w) => CLIENT_LIST_PLACEHOLDER.test(w.name ?? '') && !w.addr)) throw new ClientListUnavailable();
  return workers.length;
}
