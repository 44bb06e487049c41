import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** One key as a snapshot holds it: a digest of its value (see `valueDigest`) and when it expires (unix ms, -1: never). */
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

/** Keys read per MULTI: one batch is one consistent moment of those keys. */
const BATCH = 200;

/**
 * Every key under `prefix` with a digest of its value and its absolute expiry
 * (PEXPIRETIME, Redis 7): unlike a TTL, it does not tick between two snapshots, so any
 * EXPIRE, PERSIST or rewrite with a new TTL shows. Each batch is read in one MULTI, so
 * a key's type, value and expiry are of the same moment.
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
  for (let i = 0; i < unique.length; i += BATCH) {
    const slice = unique.slice(i, i + BATCH);
    const multi = redis.multi();
    // Every read for every key: the one of its type answers, the others fail with WRONGTYPE.
    for (const k of slice) multi.type(k).call('PEXPIRETIME', k).dumpBuffer(k).hkeysBuffer(k).hvalsBuffer(k).smembersBuffer(k);
    const res = (await multi.exec()) ?? [];
    if (res.length !== slice.length * READS) throw new Error(`keyspaceSnapshot: EXEC answered ${res.length} replies`);
    slice.forEach((k, j) => {
      const [type, expiresAt, dump, fields, values, members] = res.slice(j * READS, (j + 1) * READS);
      if (type[0] || expiresAt[0]) throw type[0] ?? expiresAt[0];
      // Gone between SCAN and the read: expired or deleted, as if never listed.
      if (type[1] === 'none') return;
      out.set(k, { hash: valueDigest(String(type[1]), dump, fields, values, members), expiresAt: Number(expiresAt[1]) });
    });
  }
  const [seconds, micros] = await redis.time();
  return { keys: out, takenAt: Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) };
}

/**
 * Replies per key in a snapshot's MULTI: TYPE, PEXPIRETIME, DUMP, HKEYS, HVALS, SMEMBERS. HKEYS
 * and HVALS walk the same table in the same order (ioredis turns HGETALL into an object,
 * which would lose a field name that is not UTF-8).
 */
const READS = 6;

type Reply = [Error | null, unknown];

/**
 * A digest of a key's value that changes only when its content does. A hash's or a
 * set's DUMP is not that: one held in a hash table is serialized in the table's order,
 * and while the table grows Redis moves its entries to the larger table a few at a time,
 * at each lookup of a field (HGET, HSTRLEN, HMGET), so a read changes the DUMP of a hash
 * whose last write made its table grow (shown in tests/integration/redis-snapshot.test.ts).
 * A dead letter's entry hash is one (fields of more than 64 bytes), and the dashboard
 * reads its fields. So hashes and sets are digested as their sorted fields and values or
 * members; every other type's DUMP is its content in a fixed order.
 */
function valueDigest(type: string, dump: Reply, fields: Reply, values: Reply, members: Reply): string {
  const h = createHash('sha256').update(type).update('\0');
  const take = (reply: Reply) => {
    if (reply[0]) throw reply[0];
    return reply[1];
  };
  if (type === 'hash') {
    const vs = take(values) as Buffer[];
    const pairs = (take(fields) as Buffer[]).map((f, i): [Buffer, Buffer] => [f, vs[i]]);
    pairs.sort((a, b) => Buffer.compare(a[0], b[0]));
    for (const [f, v] of pairs) h.update(lengthPrefixed(f)).update(lengthPrefixed(v));
  } else if (type === 'set') {
    for (const m of (take(members) as Buffer[]).sort(Buffer.compare)) h.update(lengthPrefixed(m));
  } else {
    h.update(take(dump) as Buffer);
  }
  return h.digest('hex');
}

/** A value with its length before it, so that no two lists of values digest alike. */
function lengthPrefixed(b: Buffer): Buffer {
  const n = Buffer.alloc(4);
  n.writeUInt32BE(b.length);
  return Buffer.concat([n, b]);
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
