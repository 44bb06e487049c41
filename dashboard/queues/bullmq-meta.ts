import 'server-only';
import type { RedisClient } from '@/lib/redis/connection';

/** What a `<prefix>:<name>:meta` key is: absent, a queue's meta hash as BullMQ writes it, or some other key. */
export type MetaKind = 'missing' | 'bullmq' | 'other';

/**
 * Whether a key is a BullMQ queue's meta hash, not merely a key named like one. BullMQ
 * writes `opts.maxLenEvents` (a number) when a Queue starts and when a job is added to a
 * queue whose meta lacks it, and `version` (`bullmq:6.7.0`) when a Queue starts
 * (bullmq 6.7, `Queue.metaValues` and the `getOrSetMaxEvents` script helper). Another
 * application's hash (`bull:sessionstore:meta`) or a string holds neither.
 */
export function metaKind(type: string, fields: ReadonlyArray<string | null>): MetaKind {
  if (type === 'none') return 'missing';
  if (type !== 'hash') return 'other';
  const [maxLenEvents, version] = fields;
  const bullmq = (maxLenEvents != null && /^\d{1,12}$/.test(maxLenEvents)) || (version != null && /^bullmq[:-]/.test(version));
  return bullmq ? 'bullmq' : 'other';
}

/** The fields `metaKind` reads, in its order. */
export const META_FIELDS = ['opts.maxLenEvents', 'version'] as const;

/** Reads one key's type and BullMQ's meta fields (one round trip) and classifies it. */
export async function readMetaKind(redis: RedisClient, key: string): Promise<MetaKind> {
  const [[typeErr, type], [, fields]] = ((await redis
    .pipeline()
    .type(key)
    .hmget(key, ...META_FIELDS)
    .exec()) ?? []) as [[Error | null, string], [Error | null, Array<string | null> | null]];
  // HMGET fails with WRONGTYPE on a key of another type: TYPE tells that case.
  if (typeErr) throw typeErr;
  return metaKind(type, fields ?? []);
}
