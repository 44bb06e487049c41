import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, readyClient, type RedisClient } from '@/lib/redis/connection';
import { Lease } from '@/lib/redis/lease';
import { uniquePrefix } from '../helpers/redis';
import { useTestRedis } from '../helpers/use-test-redis';

const server = useTestRedis();
let redis: RedisClient;

beforeAll(async () => {
  redis = await readyClient(createRedis({ host: '127.0.0.1', port: server.redis.port }, 'producer'));
});
afterAll(() => {
  redis.disconnect();
});

describe('Lease, the one lock', () => {
  it('one holder at a time; the same owner takes it back at once; others learn who holds it', async () => {
    const lease = new Lease(redis, `${uniquePrefix()}:lease`, { ttlMs: 5_000 });
    expect(await lease.tryAcquire('job-1')).toBeNull();
    expect(await lease.tryAcquire('job-1')).toBeNull();
    expect(await lease.tryAcquire('job-2')).toBe('job-1');
    expect(await lease.release('job-2')).toBe(false);
    expect(await lease.renew('job-2')).toBe(false);
    expect(await lease.renew('job-1')).toBe(true);
    expect(await lease.release('job-1')).toBe(true);
    expect(await lease.tryAcquire('job-2')).toBeNull();
  });

  it('a dead holder’s lease expires, and it can neither renew nor free its successor’s', async () => {
    const lease = new Lease(redis, `${uniquePrefix()}:lease`, { ttlMs: 150 });
    expect(await lease.acquire('dead')).toBe(true);
    expect(await lease.acquire('next', 1_000)).toBe(true);
    expect(await lease.renew('dead')).toBe(false);
    expect(await lease.release('dead')).toBe(false);
    expect(await redis.get(lease.key)).toBe('next');
  });

  it('run() waits up to waitMs, runs under the lease and frees it, even when fn throws', async () => {
    const lease = new Lease(redis, `${uniquePrefix()}:lease`);
    await lease.acquire('other');
    expect(await lease.run('me', 120, async () => 1)).toEqual({ acquired: false });
    setTimeout(() => void lease.release('other'), 100);
    expect(await lease.run('me', 2_000, async () => 2)).toEqual({ acquired: true, value: 2 });
    await expect(lease.run('me', 0, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await redis.exists(lease.key)).toBe(0);
    expect(() => new Lease(redis, 'k', { ttlMs: 10 })).toThrow(/at least 100 ms/);
  });
});
