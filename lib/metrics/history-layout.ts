import type { Keyspace } from '../redis/keys';
import { HISTOGRAM_BUCKETS } from './history-buckets';

/**
 * Where the hourly history lives and for how long: one hash per queue and UTC hour,
 * `<root>:{history:<queue>}:h:<hour>` (hour = epoch ms / 3,600,000). The hash tag is per
 * queue, so one queue's hours share a cluster slot (a flush of one queue is one pipeline
 * on one node) while the queues spread over the shards (docs/scaling.md). Its own tag
 * rather than the queue's `{<queue>}`: no key of ours can meet a BullMQ key of a queue
 * named `history`.
 *
 * Fields (only those that are not zero exist):
 *   c        completed jobs that hour
 *   f        jobs that failed for good that hour
 *   d<i>     attempts whose run time fell in histogram bucket i (lib/metrics/history-buckets.ts)
 *   w<i>     first attempts whose wait fell in bucket i
 */
export const HOUR_MS = 3_600_000;
/** How far back the dashboard's longest range reaches. */
export const HISTORY_SHOWN_DAYS = 30;
/** Each hour's hash expires this long after the hour ended: the 30 days shown plus a day of slack. */
export const HISTORY_RETENTION_MS = (HISTORY_SHOWN_DAYS + 1) * 24 * HOUR_MS;
/** Hashes one queue holds at most: every hour of the retention, and the current one. */
export const HISTORY_MAX_HOURS = HISTORY_RETENTION_MS / HOUR_MS + 1;
/** Fields one hash holds at most: the two counts and both histograms. */
export const HISTORY_MAX_FIELDS = 2 + 2 * HISTOGRAM_BUCKETS;

/**
 * BullMQ's per-minute counters kept by every Bullpen worker (`metrics.maxDataPoints`): two
 * weeks, BullMQ's own recommendation (docs.bullmq.io/guide/metrics). The last hour's chart
 * reads them, and the hourly ranges fall back on them for hours the roll-up has no record of.
 */
export const MINUTE_POINTS = 60 * 24 * 14;

export const FIELD = { completed: 'c', failed: 'f', duration: 'd', wait: 'w' } as const;

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

export function historyKey(keys: Keyspace, queue: string, hour: number): string {
  return keys.tagged(`history:${queue}`, 'h', hour);
}

/** When the hash of `hour` expires (epoch ms): the retention after the hour's end. */
export function historyExpiresAt(hour: number): number {
  return (hour + 1) * HOUR_MS + HISTORY_RETENTION_MS;
}
