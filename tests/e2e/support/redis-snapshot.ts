import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** One key as a snapshot holds it: a hash of its value (DUMP) and when it expires (unix ms, -1: never). */
interface KeyState {
  hash: string;
  expiresAt: number;
}

/** Every key under a prefix, and Redis's clock when the snapshot was complete. */
export interface KeyspaceSnapshot {
  keys: Map<string, KeyState>;
  /** Redis's TIME, in ms, after the last key was read. */
  takenAt: number;
}

/**
 * Every key under `prefix` with a hash of its value and its absolute expiry
 * (PEXPIRETIME, Redis 7): unlike a TTL, it does not tick between two snapshots, so any
 * EXPIRE, PERSIST or rewrite with a new TTL shows.
 */
export async function keyspaceSnapshot(redis: Redis, prefix: string): Promise<KeyspaceSnapshot> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const out = new Map<string, KeyState>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += 500) {
    const slice = unique.slice(i, i + 500);
    const pipe = redis.pipeline();
    for (const k of slice) pipe.dumpBuffer(k).call('PEXPIRETIME', k);
    const res = (await pipe.exec()) ?? [];
    slice.forEach((k, j) => {
      const [dumpErr, value] = res[j * 2] ?? [];
      const [expiryErr, expiresAt] = res[j * 2 + 1] ?? [];
      if (dumpErr || expiryErr) throw dumpErr ?? expiryErr;
      // Gone between SCAN and DUMP: expired or deleted, as if never listed.
      if (!value) return;
      out.set(k, {
        hash: createHash('sha256')
          .update(value as Buffer)
          .digest('hex'),
        expiresAt: Number(expiresAt),
      });
    });
  }
  const [seconds, micros] = await redis.time();
  return { keys: out, takenAt: Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) };
}

/**
 * The keys that changed between two snapshots, whatever their TTL: `+k` created, `-k`
 * deleted, `~k` rewritten, `@k` its expiry set, changed or removed. A key whose expiry
 * had passed by the second snapshot may be gone without anyone acting (Redis expired
 * it); any other disappearance is a delete.
 */
export function changedKeys(before: KeyspaceSnapshot, after: KeyspaceSnapshot): string[] {
  const changed: string[] = [];
  for (const [k, a] of after.keys) {
    const b = before.keys.get(k);
    if (!b) changed.push(`+${k}`);
    else if (b.hash !== a.hash) changed.push(`~${k}`);
    else if (b.expiresAt !== a.expiresAt) changed.push(`@${k}`);
  }
  for (const [k, b] of before.keys) {
    const expired = b.expiresAt !== -1 && b.expiresAt <= after.takenAt;
    if (!after.keys.has(k) && !expired) changed.push(`-${k}`);
  }
  return changed.sort();
}
