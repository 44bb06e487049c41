import { describe, expect, it } from 'vitest';
import { CachedSingleFlight } from '@/lib/health/cached-single-flight';
import { withTimeLimit } from '@/lib/health/time-limit';
import { TimeoutError } from '@/lib/errors/timeout-error';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('CachedSingleFlight', () => {
  it('shares one load among concurrent callers', async () => {
    let loads = 0;
    const gate = deferred<number>();
    const cache = new CachedSingleFlight(() => {
      loads++;
      return gate.promise;
    }, 1_000);
    const callers = Array.from({ length: 20 }, () => cache.get());
    gate.resolve(42);
    expect(await Promise.all(callers)).toEqual(Array(20).fill(42));
    expect(loads).toBe(1);
  });

  it('reuses the value within the TTL and loads again after it', async () => {
    let clock = 0;
    let loads = 0;
    const cache = new CachedSingleFlight(
      async () => ++loads,
      2_000,
      () => clock,
    );
    expect(await cache.get()).toBe(1);
    clock = 1_999;
    expect(await cache.get()).toBe(1);
    clock = 2_000;
    expect(await cache.get()).toBe(2);
    cache.invalidate();
    expect(await cache.get()).toBe(3);
  });

  it('does not cache a failure', async () => {
    let calls = 0;
    const cache = new CachedSingleFlight(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return 'ok';
    }, 10_000);
    await expect(cache.get()).rejects.toThrow('boom');
    expect(await cache.get()).toBe('ok');
  });

  it('rejects a negative TTL with the rule', () => {
    expect(() => new CachedSingleFlight(async () => 1, -1)).toThrow(/ttlMs must be a finite number ≥ 0/);
  });
});

describe('withTimeLimit', () => {
  it('passes a prompt result through', async () => {
    await expect(withTimeLimit(Promise.resolve(7), 1_000, 'x')).resolves.toBe(7);
  });

  it('rejects with a TimeoutError when the work hangs, and swallows its late failure', async () => {
    const late = deferred<number>();
    const limited = withTimeLimit(late.promise, 20, 'redis health check');
    await expect(limited).rejects.toBeInstanceOf(TimeoutError);
    await expect(limited).rejects.toThrow('redis health check timed out after 20 ms');
    late.reject(new Error('connection reset')); // must not become an unhandled rejection
    await new Promise((r) => setTimeout(r, 5));
  });
});
