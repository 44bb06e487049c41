import { LUA } from './lua';
import { LuaCommand } from '../redis/lua-command';
import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/connection';
import type { JobStateName } from './job-summary';

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
 * One bounded step of a filtered scan, run inside Redis so job hashes never travel:
 * reads ids [start, start+count) of a state newest first and returns those whose
 * `name` equals ARGV[5] (if given), whose envelope's tenant orgId equals ARGV[6] (if
 * given), whose data holds the substring ARGV[7] and whose value at the dotted path
 * ARGV[8] reads as ARGV[9] (payload search, if given). A cheap substring test rejects
 * most jobs before cjson decodes the data.
 * Job hashes share the queue's hash tag, so on a cluster this touches one slot.
 */
const SCAN_SCRIPT = new LuaCommand('queue-scan-script', LUA['queue-scan-script']);

export interface ScanOptions {
  name?: string;
  tenant?: string;
  /** Matches wanted (offset + page size + 1 to know there is a next page). */
  want: number;
  /** Ids examined at most, newest first. @defaultValue 50000 */
  limit?: number;
  /** Ids per script call: bounds how long one call holds Redis. @defaultValue 2000 */
  chunk?: number;
}

export interface ScanResult {
  ids: string[];
  /** Ids examined. */
  scanned: number;
  /** True when the scan stopped at `limit` with the state not fully examined: say "searched the newest N". */
  capped: boolean;
}

export const SCAN_LIMIT = 50_000;

/** What a scan keeps: every test given must hold (AND). */
export interface ScanMatch {
  /** Exact job name. */
  name?: string;
  /** Tenant orgId of the envelope. */
  tenant?: string;
  /** A substring of the job's data as stored (its JSON text), case-sensitive. */
  contains?: string;
  /** A dotted path into the decoded data (`payload.user.id`; a number indexes an array) whose value, as text, equals `value`. */
  path?: string;
  value?: string;
}

/** One script call's reply: how many ids it read and those that matched. */
export interface ScanChunk {
  read: number;
  ids: string[];
}

/**
 * Examines ids [start, start+count) of a state, newest first, inside Redis; `read` below
 * `count` means the state ends there. The step every bounded scan (a filtered page, an
 * export) is made of.
 */
export async function scanChunk(
  redis: RedisClient,
  queue: Queue,
  state: JobStateName,
  f: ScanMatch,
  start: number,
  count: number,
): Promise<ScanChunk> {
  const { suffix, list } = STATE_KEYS[state];
  const reply = (await SCAN_SCRIPT.run(
    redis,
    [queue.toKey(suffix)],
    [queue.toKey(''), start, count, list ? '1' : '0', f.name ?? '', f.tenant ?? '', f.contains ?? '', f.path ?? '', f.value ?? ''],
  )) as [number, ...string[]];
  const [read, ...ids] = reply;
  return { read, ids };
}

/**
 * Newest-first ids of `state` matching a name and/or tenant, by bounded scan:
 * stops at `want` matches or after `limit` ids, whichever comes first. The caller
 * shows "searched the newest N" when `capped`.
 */
export async function scanJobIds(redis: RedisClient, queue: Queue, state: JobStateName, opts: ScanOptions): Promise<ScanResult> {
  const limit = opts.limit ?? SCAN_LIMIT;
  const chunk = Math.max(1, opts.chunk ?? 2_000);
  const ids: string[] = [];
  let scanned = 0;
  while (ids.length < opts.want && scanned < limit) {
    const count = Math.min(chunk, limit - scanned);
    const step = await scanChunk(redis, queue, state, opts, scanned, count);
    scanned += step.read;
    ids.push(...step.ids);
    if (step.read < count) return { ids: ids.slice(0, opts.want), scanned, capped: false };
  }
  return { ids: ids.slice(0, opts.want), scanned, capped: ids.length < opts.want };
}
