import 'server-only';
import type { Queue } from 'bullmq';
import type { RedisClient, RedisPipeline } from '@/lib/redis/connection';
import type { JobStateName } from '@/dashboard/jobs/job-summary';
import { payloadMatcher, type ScanMatch } from './payload-match';

export type { ScanMatch } from './payload-match';

/** The Redis structure behind each state, and whether it is a list (else a sorted set). */
export const STATE_KEYS: Record<JobStateName, { suffix: string; list: boolean }> = {
  waiting: { suffix: 'wait', list: true },
  active: { suffix: 'active', list: true },
  delayed: { suffix: 'delayed', list: false },
  prioritized: { suffix: 'prioritized', list: false },
  'waiting-children': { suffix: 'waiting-children', list: false },
  completed: { suffix: 'completed', list: false },
  failed: { suffix: 'failed', list: false },
};

/**
 * Job data one round trip of a scan fetches at most (one job's data alone may be more:
 * it is one HGET, a copy of its bytes). Redis spends ~0.15 ms per MiB on such a copy
 * (docs/security.md, "Costly reads"), so no command of a scan holds it for more than a
 * fraction of a millisecond, whatever the payloads.
 */
export const SCAN_FETCH_BYTES = 1024 * 1024;
/** Ids one range read of a scan returns at most: bounds the O(1) commands per round trip. */
export const SCAN_CHUNK = 2_000;
/** Data sizes asked for per round trip while a step walks its range. */
const SIZE_BATCH = 200;

export interface ScanOptions {
  name?: string;
  tenant?: string;
  /** Matches wanted (offset + page size + 1 to know there is a next page). */
  want: number;
  /** Ids examined at most, newest first. @defaultValue SCAN_LIMIT */
  limit?: number;
  /** Job data examined at most. @defaultValue SCAN_BYTES_LIMIT */
  bytesLimit?: number;
  /** Ids per range read. @defaultValue SCAN_CHUNK */
  chunk?: number;
}

export interface ScanResult {
  ids: string[];
  /** Ids examined. */
  scanned: number;
  /** True when the scan stopped at `limit` or `bytesLimit` with the state not fully examined: say "searched the newest N". */
  capped: boolean;
}

export const SCAN_LIMIT = 50_000;
/** Job data a filtered page examines at most: a tenant filter reads each job's data. */
export const SCAN_BYTES_LIMIT = 64 * 1024 * 1024;

/** One scan step's outcome: ids [start, start + read) were examined, in order, and `ids` matched. */
export interface ScanChunk {
  read: number;
  ids: string[];
  /** Job data examined, in bytes. */
  bytes: number;
  /** The state holds no id past `start + read`. */
  ended: boolean;
}

/**
 * Examines ids [start, start+count) of a state, newest first, and stops early, before
 * the job that would take the data examined past `maxBytes` (the first job is always
 * examined, so a step always moves on): the next step starts at `start + read`, and no
 * job is skipped. The step every bounded scan (a filtered page, an export, a payload
 * search) is made of.
 *
 * No script and no decoding in Redis: one range read of at most `count` ids, one
 * pipeline of O(1) HSTRLENs (and the names, when filtered by name, fetched only when
 * their length matches), then the data of the jobs that remain in round trips of at
 * most SCAN_FETCH_BYTES, matched here by `payloadMatcher`. Every command is a range of
 * ids or a copy of one value, so other clients' commands are answered between them.
 * Job hashes share the queue's hash tag, so on a cluster this touches one slot.
 */
export async function scanChunk(
  redis: RedisClient,
  queue: Queue,
  state: JobStateName,
  f: ScanMatch,
  start: number,
  count: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<ScanChunk> {
  const { suffix, list } = STATE_KEYS[state];
  const key = queue.toKey(suffix);
  const ids = list ? await redis.lrange(key, start, start + count - 1) : await redis.zrevrange(key, start, start + count - 1);
  const match = payloadMatcher(f);
  const jobKey = (id: string) => queue.toKey(id);

  let named = ids;
  if (f.name) {
    const want = Buffer.byteLength(f.name);
    const lengths = await exec<number>(redis, ids, (p, id) => p.hstrlen(jobKey(id), 'name'));
    const sameLength = ids.filter((_, i) => lengths[i] === want);
    const names = await exec<string | null>(redis, sameLength, (p, id) => p.hget(jobKey(id), 'name'));
    const keep = new Set(sameLength.filter((_, i) => names[i] === f.name));
    named = ids.filter((id) => keep.has(id));
  }
  const ended = ids.length < count;
  if (!match) return { read: ids.length, ids: named, bytes: 0, ended };

  // Walk the range in order, charging each job's data; stop before the one past the budget.
  // Sizes are asked for in small batches, so a step that stops early asks for few.
  const kept = new Set(named);
  const size = new Map<string, number>();
  let read = 0;
  let bytes = 0;
  const examine: string[] = [];
  walk: for (let i = 0; i < ids.length; i += SIZE_BATCH) {
    const batch = ids.slice(i, i + SIZE_BATCH).filter((id) => kept.has(id));
    const sizes = await exec<number>(redis, batch, (p, id) => p.hstrlen(jobKey(id), 'data'));
    for (const [j, id] of batch.entries()) size.set(id, sizes[j]);
    for (const id of ids.slice(i, i + SIZE_BATCH)) {
      const n = size.get(id) ?? 0;
      if (n > 0) {
        if (read > 0 && bytes + n > maxBytes) break walk;
        bytes += n;
        examine.push(id);
      }
      read++;
    }
  }
  const matched: string[] = [];
  for (let i = 0; i < examine.length; ) {
    let batchBytes = 0;
    const batch: string[] = [];
    while (i < examine.length && (batch.length === 0 || batchBytes + (size.get(examine[i]) ?? 0) <= SCAN_FETCH_BYTES)) {
      batchBytes += size.get(examine[i]) ?? 0;
      batch.push(examine[i++]);
    }
    const data = await exec<string | null>(redis, batch, (p, id) => p.hget(jobKey(id), 'data'));
    batch.forEach((id, j) => {
      const d = data[j];
      if (d !== null && match(d)) matched.push(id);
    });
  }
  return { read, ids: matched, bytes, ended: ended && read === ids.length };
}

/** One command per id in one pipeline (one round trip); a command's error is thrown. */
async function exec<T>(redis: RedisClient, ids: string[], add: (p: RedisPipeline, id: string) => void): Promise<T[]> {
  if (ids.length === 0) return [];
  const p = redis.pipeline();
  for (const id of ids) add(p, id);
  const res = (await p.exec()) ?? [];
  return res.map(([err, value]) => {
    if (err) throw err;
    return value as T;
  });
}

/**
 * Newest-first ids of `state` matching a name and/or tenant, by bounded scan:
 * stops at `want` matches, after `limit` ids or after `bytesLimit` of job data,
 * whichever comes first. The caller shows "searched the newest N" when `capped`.
 */
export async function scanJobIds(redis: RedisClient, queue: Queue, state: JobStateName, opts: ScanOptions): Promise<ScanResult> {
  const limit = opts.limit ?? SCAN_LIMIT;
  let bytesLeft = opts.bytesLimit ?? SCAN_BYTES_LIMIT;
  const chunk = Math.max(1, opts.chunk ?? SCAN_CHUNK);
  const ids: string[] = [];
  let scanned = 0;
  while (ids.length < opts.want && scanned < limit && bytesLeft > 0) {
    const count = Math.min(chunk, limit - scanned);
    const step = await scanChunk(redis, queue, state, opts, scanned, count, bytesLeft);
    scanned += step.read;
    bytesLeft -= step.bytes;
    ids.push(...step.ids);
    if (step.ended) return { ids: ids.slice(0, opts.want), scanned, capped: false };
  }
  return { ids: ids.slice(0, opts.want), scanned, capped: ids.length < opts.want };
}
