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
});
