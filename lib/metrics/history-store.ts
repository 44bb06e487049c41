import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { emptyHistogram, HISTOGRAM_BUCKETS, type Histogram } from './history-buckets';
import { FIELD, historyKey } from './history-layout';

/** One queue-hour of the roll-up as stored. */
export interface HourRecord {
  completed: number;
  failed: number;
  duration: Histogram;
  wait: Histogram;
}

/**
 * The roll-up's hours `fromHour..toHour` (inclusive) of one queue, one HGETALL each in one
 * pipeline (the queue's hours share a slot). Hours without a hash are absent from the map:
 * nothing was recorded then.
 */
export async function readHistoryHours(
  redis: RedisClient,
  keys: Keyspace,
  queue: string,
  fromHour: number,
  toHour: number,
): Promise<Map<number, HourRecord>> {
  const out = new Map<number, HourRecord>();
  if (toHour < fromHour) return out;
  const p = redis.pipeline();
  for (let h = fromHour; h <= toHour; h++) p.hgetall(historyKey(keys, queue, h));
  const replies = (await p.exec()) ?? [];
  replies.forEach(([err, value], i) => {
    if (err) throw err;
    const rec = parseHour(value as Record<string, string>);
    if (rec) out.set(fromHour + i, rec);
  });
  return out;
}

/** A hash's fields as a record; null for a missing (empty) hash. Unknown fields are ignored. */
export function parseHour(fields: Record<string, string>): HourRecord | null {
  const names = Object.keys(fields);
  if (names.length === 0) return null;
  const rec: HourRecord = { completed: 0, failed: 0, duration: emptyHistogram(), wait: emptyHistogram() };
  for (const name of names) {
    const n = Number(fields[name]);
    if (!Number.isFinite(n)) continue;
    if (name === FIELD.completed) rec.completed = n;
    else if (name === FIELD.failed) rec.failed = n;
    else {
      const kind = name[0];
      const i = Number(name.slice(1));
      if (!Number.isInteger(i) || i < 0 || i >= HISTOGRAM_BUCKETS) continue;
      if (kind === FIELD.duration) rec.duration[i] += n;
      else if (kind === FIELD.wait) rec.wait[i] += n;
    }
  }
  return rec;
}
