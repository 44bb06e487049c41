import type { Queue } from 'bullmq';
import { PRIORITY } from '../jobs/priority';
import type { RedisClient } from '../redis/connection';

export interface WaitingSnapshot {
  /** Jobs ready to run: the wait list plus the prioritized set (O(1) each). */
  waiting: number;
  /** When the longest-waiting job became ready (ms since epoch); null when none is measurable. */
  oldestReadyAt: number | null;
  /** The queue is paused: its jobs wait on purpose. */
  paused: boolean;
}

// BullMQ's prioritized score is `priority * 2^32 + counter`: one band per priority,
// FIFO inside a band.
const BAND = 2 ** 32;
/** Entries read from the head of each lane: enough to step over a few retried jobs. */
const WINDOW = 3;
// The wait list of a queue written by BullMQ 5 can end in a marker id "0:<ts>".
const isMarker = (id: string) => id.startsWith('0:');

/**
 * How long the longest-waiting job of one queue has been ready, without a scan: a few
 * O(log n) range reads and one small hash read per candidate, in two pipelined round
 * trips (every key shares the queue's hash tag, so this also works on a cluster).
 *
 * Each lane (the wait list, whose head is its right end because BullMQ pops from the
 * right; the prioritized set; and each named priority band, because a LOW job starved
 * behind a stream of CRITICAL ones is what this check exists to notice) is ordered by
 * when its jobs became ready. The first job of a lane that has never run gives that
 * lane's age exactly. Jobs that already ran (retries, stalled jobs) are stepped over:
 * BullMQ keeps no record of when a retry became ready again, and timing one from its
 * creation would report its backoff (up to an hour) as waiting. Since the lane is
 * FIFO, the first fresh job behind them still bounds the lane's wait from below.
 */
export async function readOldestWaiting(redis: RedisClient, queue: Queue): Promise<WaitingSnapshot> {
  const { wait, prioritized, meta } = queue.keys;
  const first = redis
    .pipeline()
    .llen(wait)
    .zcard(prioritized)
    .hexists(meta, 'paused')
    .lrange(wait, -WINDOW, -1)
    .zrange(prioritized, 0, WINDOW - 1);
  for (const p of new Set(Object.values(PRIORITY))) {
    first.zrangebyscore(prioritized, p * BAND, (p + 1) * BAND - 1, 'LIMIT', 0, WINDOW);
  }
  const [waitLen, prioLen, paused, tail, ...zsetLanes] = unwrap(await first.exec()) as [number, number, number, string[], ...string[][]];
  const lanes = [tail.filter((id) => !isMarker(id)).reverse(), ...zsetLanes].filter((l) => l.length > 0);

  let oldestReadyAt: number | null = null;
  if (lanes.length > 0) {
    const ids = [...new Set(lanes.flat())];
    const second = redis.pipeline();
    for (const id of ids) second.hmget(queue.toKey(id), 'timestamp', 'processedOn', 'opts');
    const fields = unwrap(await second.exec()) as Array<Array<string | null>>;
    const readyAt = new Map(ids.map((id, i) => [id, freshReadyAt(fields[i])]));
    for (const lane of lanes) {
      const firstFresh = lane.map((id) => readyAt.get(id)).find((t): t is number => typeof t === 'number');
      if (firstFresh !== undefined && (oldestReadyAt === null || firstFresh < oldestReadyAt)) oldestReadyAt = firstFresh;
    }
  }
  return { waiting: Number(waitLen) + Number(prioLen), oldestReadyAt, paused: Number(paused) === 1 };
}

/**
 * When a job that has never run became ready: its creation plus any initial delay
 * (BullMQ zeroes the hash's `delay` field on promotion, so the delay is read from
 * `opts`). Undefined for a job that already ran, or was removed between the reads.
 */
function freshReadyAt([timestamp, processedOn, opts]: Array<string | null>): number | undefined {
  if (timestamp === null || processedOn) return undefined;
  let delay = 0;
  try {
    const parsed = opts ? (JSON.parse(opts) as { delay?: unknown }) : {};
    if (typeof parsed.delay === 'number' && parsed.delay > 0) delay = parsed.delay;
  } catch {
    // Unreadable opts: the creation time overstates the wait, which never hides a problem.
  }
  return Number(timestamp) + delay;
}

function unwrap(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error('pipeline discarded');
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
