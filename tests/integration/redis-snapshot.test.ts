import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '../helpers/redis';
import { useTestRedis } from '../helpers/use-test-redis';
import { changedKeys, keyspaceSnapshot } from '../e2e/support/redis-snapshot';

/**
 * The fuzz suite's change detector (tests/e2e/fuzz-actions.spec.ts: "a refused call
 * changes nothing in Redis") must see every change, keys with a TTL included, or a
 * refusal that wrote a session, a lock or a counter would pass unseen.
 */
describe('keyspace change detector', () => {
  const server = useTestRedis();

  it('sees a rewrite, a delete and an expiry change of any key, TTL or not, and not a key that expired by itself', async () => {
    const redis = (await server.readyBullpen()).redis as Redis;
    const p = uniquePrefix('snap');
    await redis.set(`${p}:plain`, 'a');
    await redis.set(`${p}:ttl`, 'a', 'PX', 600_000);
    await redis.hset(`${p}:hash`, { f: '1' });
    await redis.pexpire(`${p}:hash`, 600_000);
    await redis.set(`${p}:short`, 'a', 'PX', 150);
    await redis.set(`${p}:gone`, 'a', 'PX', 600_000);
    await redis.set('elsewhere', 'a');
    const snap = () => keyspaceSnapshot(redis, p);

    let before = await snap();
    expect(before.keys.size).toBe(5);
    // Time passes, TTLs tick, one key expires by itself: no change.
    await new Promise((r) => setTimeout(r, 300));
    let after = await snap();
    expect(after.keys.has(`${p}:short`)).toBe(false);
    expect(changedKeys(before, after)).toEqual([]);

    before = after;
    await redis.set(`${p}:ttl`, 'b', 'KEEPTTL');
    await redis.pexpire(`${p}:hash`, 900_000);
    await redis.del(`${p}:gone`);
    await redis.set(`${p}:lock`, 'x', 'PX', 5_000);
    await redis.set(`${p}:plain`, 'b');
    await redis.set('elsewhere', 'b');
    after = await snap();
    expect(changedKeys(before, after)).toEqual([`+${p}:lock`, `-${p}:gone`, `@${p}:hash`, `~${p}:plain`, `~${p}:ttl`].sort());

    before = after;
    // The same value written again with a fresh TTL, and a TTL removed: both are changes.
    await redis.set(`${p}:ttl`, 'b', 'PX', 600_000);
    await redis.persist(`${p}:hash`);
    after = await snap();
    expect(changedKeys(before, after)).toEqual([`@${p}:hash`, `@${p}:ttl`].sort());
  });

  it('takes no read for a write: a hash or set whose table is growing is the same after a lookup, and a write to it still shows', async () => {
    const redis = (await server.readyBullpen()).redis as Redis;
    const p = uniquePrefix('snap');
    const hash = `${p}:entry`;
    const set = `${p}:members`;
    // A field over 64 bytes (hash-max-listpack-value) puts a hash in a hash table, as a dead
    // letter's entry is; members that are not integers do the same to a set. Grown one field
    // at a time to 19, the table grew from 16 slots to 32 at the 17th, and its entries move
    // to the larger table a few at each lookup.
    await redis.hset(hash, 'doc', 'x'.repeat(100));
    for (let i = 1; i < 19; i++) await redis.hset(hash, `f${i}`, String(i));
    for (let i = 0; i < 19; i++) await redis.sadd(set, `m${i}`);
    const dumps = async () => [(await redis.dumpBuffer(hash))?.toString('hex'), (await redis.dumpBuffer(set))?.toString('hex')];
    const before = await keyspaceSnapshot(redis, p);
    const dumped = await dumps();
    // Reads, as the dashboard's of an entry (HSTRLEN in dlq-read.lua, HMGET for chain states).
    for (let i = 0; i < 5; i++) {
      await redis.hstrlen(hash, 'doc');
      await redis.hmget(hash, 'f1', 'f2');
      await redis.sismember(set, 'm1');
    }
    // What the snapshot hashed before (DUMP) changed under those reads: the case this covers.
    const [hashDump, setDump] = await dumps();
    expect(hashDump, "the reads left the hash's DUMP as it was: this Redis no longer shows the case").not.toBe(dumped[0]);
    expect(setDump, "the reads left the set's DUMP as it was: this Redis no longer shows the case").not.toBe(dumped[1]);
    let after = await keyspaceSnapshot(redis, p);
    expect(changedKeys(before, after)).toEqual([]);

    await redis.hset(hash, 'f1', 'changed');
    await redis.srem(set, 'm1');
    const written = await keyspaceSnapshot(redis, p);
    expect(changedKeys(after, written)).toEqual([`~${hash}`, `~${set}`].sort());
    // The same content written back is no change.
    await redis.hset(hash, 'f1', '1');
    await redis.sadd(set, 'm1');
    after = await keyspaceSnapshot(redis, p);
    expect(changedKeys(before, after)).toEqual([]);
  });
});
