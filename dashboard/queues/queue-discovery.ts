import 'server-only';
import type { Cluster, Redis } from 'ioredis';
import type { Bullpen } from '@/lib/bullpen';
import type { RedisClient } from '@/lib/redis/connection';
import { RUNTIME_TAGS } from '@/lib/redis/keys';
import { readMetaKind } from './bullmq-meta';

/** Keys one discovery reads at most per prefix: SCAN is O(keys), and a large keyspace must not stall the page. */
export const DISCOVERY_SCAN_LIMIT = 200_000;
/** Queues one discovery lists at most. */
export const DISCOVERY_MAX_QUEUES = 500;
/** How long one discovery is reused (per process): new queues show within this time. */
export const DISCOVERY_TTL_MS = 30_000;

/** A BullMQ queue found in Redis by its `meta` key. */
export interface DiscoveredQueue {
  /** BullMQ's `prefix` option for it (`bull`, or Bullpen's `bullpen:{type}`). */
  prefix: string;
  name: string;
  /** A queue of this dashboard's job table (Bullpen's prefix, hash tag and a known type). */
  own: boolean;
  /** How the dashboard names it in URLs and actions: the type for an own queue, `<prefix>~<name>` for another. */
  ref: string;
}

export interface Discovery {
  queues: DiscoveredQueue[];
  /** The scan stopped at its key or queue budget: there may be more. */
  truncated: boolean;
  at: number;
}

/** `<prefix>~<name>`: a foreign queue's reference; own queues are referred to by their type. */
export function foreignRef(prefix: string, name: string): string {
  return `${prefix}~${name}`;
}

/** The prefixes searched: BULLPEN_QUEUE_PREFIXES, or Bullpen's own. */
export function discoveryPrefixes(bullpen: Bullpen): string[] {
  return bullpen.config.BULLPEN_QUEUE_PREFIXES?.length ? bullpen.config.BULLPEN_QUEUE_PREFIXES : [bullpen.keys.root];
}

const cache = new WeakMap<Bullpen, Promise<Discovery>>();

/**
 * Every BullMQ queue under the configured prefixes, found by SCAN over `<prefix>:*:meta`
 * (never KEYS), each key checked to be BullMQ's meta hash (bullmq-meta.ts), bounded by DISCOVERY_SCAN_LIMIT keys per
 * prefix and DISCOVERY_MAX_QUEUES queues, and reused for DISCOVERY_TTL_MS. Bullpen's
 * own queues (`<root>:{<type>}:<type>:meta`) are marked own when the type is in the job
 * table; a queue under Bullpen's prefix that the table does not define is foreign.
 */
export function discoverQueues(bullpen: Bullpen, now = Date.now()): Promise<Discovery> {
  const cached = cache.get(bullpen);
  if (cached) {
    return cached.then((d) => {
      if (now - d.at < DISCOVERY_TTL_MS) return d;
      cache.delete(bullpen);
      return discoverQueues(bullpen, now);
    });
  }
  const fresh = scanAll(bullpen, now);
  cache.set(bullpen, fresh);
  fresh.catch(() => cache.delete(bullpen));
  return fresh;
}

/** Forgets the cached discovery (a test, or after adding a queue). */
export function forgetDiscovery(bullpen: Bullpen): void {
  cache.delete(bullpen);
}

async function scanAll(bullpen: Bullpen, now: number): Promise<Discovery> {
  const found = new Map<string, DiscoveredQueue>();
  let truncated = false;
  for (const prefix of discoveryPrefixes(bullpen)) {
    const keys = await scanMetaKeys(bullpen.redis, prefix);
    truncated ||= keys.truncated;
    const metas = await onlyBullmqMetas(bullpen.redis, keys.keys);
    for (const key of metas) {
      const q = classify(bullpen, prefix, key);
      if (!q || found.has(q.ref)) continue;
      if (found.size >= DISCOVERY_MAX_QUEUES) {
        truncated = true;
        break;
      }
      found.set(q.ref, q);
    }
  }
  const queues = [...found.values()].sort(
    (a, b) => Number(b.own) - Number(a.own) || a.prefix.localeCompare(b.prefix) || a.name.localeCompare(b.name),
  );
  return { queues, truncated, at: now };
}

/** `<prefix>:<rest>:meta` → the queue it belongs to, own or foreign. */
function classify(bullpen: Bullpen, prefix: string, key: string): DiscoveredQueue | undefined {
  const rest = key.slice(prefix.length + 1, -':meta'.length);
  if (!rest) return undefined;
  // Bullpen's layout: `<root>:{<type>}:<type>`; the queue's prefix carries the hash tag.
  const tagged = /^\{([^{}]+)\}:(.+)$/.exec(rest);
  if (tagged && tagged[1] === tagged[2]) {
    const name = tagged[2];
    // The runtime's own structures (`{dlq}`, `{idem}`, …) are never queues.
    if (prefix === bullpen.keys.root && RUNTIME_TAGS.has(name)) return undefined;
    const qPrefix = `${prefix}:{${name}}`;
    const own = prefix === bullpen.keys.root && bullpen.jobs.has(name);
    return { prefix: qPrefix, name, own, ref: own ? name : foreignRef(qPrefix, name) };
  }
  // A queue's name may not hold a colon here: `a:b:meta` is some other structure's key;
  // nor, under Bullpen's root, a hash tag: `<root>:{idem}:meta` is in the runtime's own tag.
  if (rest.includes(':') || (prefix === bullpen.keys.root && /[{}]/.test(rest))) return undefined;
  return { prefix, name: rest, own: false, ref: foreignRef(prefix, rest) };
}

function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

async function scanMetaKeys(redis: RedisClient, prefix: string): Promise<{ keys: string[]; truncated: boolean }> {
  const nodes: Redis[] = isCluster(redis) ? redis.nodes('master') : [redis as Redis];
  const keys = new Set<string>();
  let truncated = false;
  for (const node of nodes) {
    let cursor = '0';
    let scanned = 0;
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', `${globEscape(prefix)}:*:meta`, 'COUNT', 1000);
      cursor = next;
      scanned += 1000;
      for (const k of batch) keys.add(k);
      if (scanned >= DISCOVERY_SCAN_LIMIT && cursor !== '0') {
        truncated = true;
        break;
      }
    } while (cursor !== '0');
  }
  return { keys: [...keys], truncated };
}

/** The keys that are BullMQ meta hashes (bullmq-meta.ts), not another application's key of the same shape. */
async function onlyBullmqMetas(redis: RedisClient, keys: string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    // One round trip per key; on a cluster each goes to its own slot's node.
    const kinds = await Promise.all(chunk.map((k) => readMetaKind(redis, k)));
    chunk.forEach((k, j) => {
      if (kinds[j] === 'bullmq') out.push(k);
    });
  }
  return out;
}

function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}
