import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** One key as a snapshot holds it: a hash of its value (DUMP) and its TTL in ms (-1: none). */
interface KeyState {
  hash: string;
  ttlMs: number;
}
export type KeyspaceSnapshot = Map<string, KeyState>;

/** Every key under `prefix` with a hash of its value and its TTL. */
export async function keyspaceSnapshot(redis: Redis, prefix: string): Promise<KeyspaceSnapshot> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const out: KeyspaceSnapshot = new Map();
  for (let i = 0; i < keys.length; i += 500) {
    const slice = keys.slice(i, i + 500);
    const pipe = redis.pipeline();
    for (const k of slice) pipe.dumpBuffer(k).pttl(k);
    const res = (await pipe.exec()) ?? [];
    slice.forEach((k, j) => {
      const value = res[j * 2]?.[1] as Buffer | null;
      if (!value) return;
      out.set(k, { hash: createHash('sha256').update(value).digest('hex'), ttlMs: Number(res[j * 2 + 1]?.[1]) });
    });
  }
  return out;
}

/** Keys that expire within this long are housekeeping (locks, stalled checks): their coming and going is not a change. */
const VOLATILE_MS = 60_000;

/**
 * The keys a call changed between two snapshots: a key created (unless it expires
 * soon), a key without a TTL deleted or rewritten. Keys with a TTL may expire or tick in
 * between without anyone acting.
 */
export function changedKeys(before: KeyspaceSnapshot, after: KeyspaceSnapshot): string[] {
  const changed: string[] = [];
  for (const [k, a] of after) {
    const b = before.get(k);
    if (!b) {
      if (a.ttlMs === -1 || a.ttlMs > VOLATILE_MS) changed.push(`+${k}`);
    } else if (b.hash !== a.hash && b.ttlMs === -1 && a.ttlMs === -1) changed.push(`~${k}`);
  }
  for (const [k, b] of before) if (!after.has(k) && b.ttlMs === -1) changed.push(`-${k}`);
  return changed.sort();
}
