import { describe, expect, it } from 'vitest';
import { LiveCache, sharedLiveCache } from '@/dashboard/live/live-cache';

/** A load whose calls are counted and whose promises the test settles. */
function deferredLoads() {
  const calls: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  const load = () =>
    new Promise<string>((resolve, reject) => {
      calls.push({ resolve, reject });
    });
  return { calls, load };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('live cache: polled keys kept fresh in the background', () => {
  it('reads a watched key again before it expires, and a poll then finds the new value', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0, refreshLeadMs: 300 });
    const { calls, load } = deferredLoads();
    const first = cache.get('live:overview', 1_500, load, { watchMs: 10_000 });
    calls[0].resolve('v1');
    expect(await first).toBe('v1');

    t = 1_100; // not yet due (1,500 − 300)
    cache.refreshDue();
    expect(calls).toHaveLength(1);
    t = 1_200;
    cache.refreshDue();
    expect(calls).toHaveLength(2);
    cache.refreshDue(); // one background read at a time
    expect(calls).toHaveLength(2);
    // Until the read lands, the old value is served.
    expect(await cache.get('live:overview', 1_500, load, { watchMs: 10_000 })).toBe('v1');
    calls[1].resolve('v2');
    await flush();
    t = 2_000; // past the first value's expiry, inside the second's (read started at 1,200)
    expect(await cache.get('live:overview', 1_500, load, { watchMs: 10_000 })).toBe('v2');
    expect(calls).toHaveLength(2);
  });

  it('stops reading once nobody has polled for the watch window', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('k', 1_500, load, { watchMs: 5_000 });
    for (t = 0; t <= 20_000; t += 100) {
      cache.refreshDue();
      await flush();
    }
    // Refreshed about every 1.2 s up to 5 s after the one request, then never again.
    expect(loads).toBeGreaterThanOrEqual(4);
    expect(loads).toBeLessThanOrEqual(6);
    expect(cache.watched).toBe(0);
  });

  it('never refreshes a key read without watchMs (a one-off read)', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    let loads = 0;
    await cache.get('live:search:x', 1_500, async () => ++loads);
    t = 1_400;
    cache.refreshDue();
    await flush();
    expect(loads).toBe(1);
    expect(cache.watched).toBe(0);
  });

  it('discards a background read that an invalidation overtook', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    const { calls, load } = deferredLoads();
    const first = cache.get('live:queue:a', 1_500, load, { watchMs: 10_000 });
    calls[0].resolve('before');
    await first;
    t = 1_300;
    cache.refreshDue();
    expect(calls).toHaveLength(2);
    cache.invalidate('live:'); // an action changed the queue while the read was in flight
    calls[1].resolve('stale read');
    await flush();
    const next = cache.get('live:queue:a', 1_500, load, { watchMs: 10_000 });
    expect(calls).toHaveLength(3);
    calls[2].resolve('after');
    expect(await next).toBe('after');
  });

  it('keeps the current value when a background read fails, then reads on demand after expiry', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    const { calls, load } = deferredLoads();
    const first = cache.get('k', 1_500, load, { watchMs: 10_000 });
    calls[0].resolve('ok');
    await first;
    t = 1_250;
    cache.refreshDue();
    calls[1].reject(new Error('redis down'));
    await flush();
    expect(await cache.get('k', 1_500, load, { watchMs: 10_000 })).toBe('ok');
    t = 1_600;
    const after = cache.get('k', 1_500, load, { watchMs: 10_000 });
    expect(calls).toHaveLength(3);
    calls[2].reject(new Error('still down'));
    await expect(after).rejects.toThrow('still down');
  });

  it('waits for a background read still running when the value expires, instead of a second read', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    const { calls, load } = deferredLoads();
    const first = cache.get('k', 1_500, load, { watchMs: 10_000 });
    calls[0].resolve('v1');
    await first;
    t = 1_200;
    cache.refreshDue();
    t = 1_700; // expired, the read is slow
    const polled = cache.get('k', 1_500, load, { watchMs: 10_000 });
    expect(calls).toHaveLength(2);
    calls[1].resolve('v2');
    expect(await polled).toBe('v2');
  });

  it('bounds how many keys it keeps fresh', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0, maxWatched: 3 });
    let loads = 0;
    for (let i = 0; i < 10; i++) await cache.get(`live:queue:${i}`, 1_500, async () => ++loads, { watchMs: 10_000 });
    expect(cache.watched).toBe(3);
    t = 1_300;
    cache.refreshDue();
    await flush();
    expect(loads).toBe(13);
  });

  it('derives once per read, and again from each background read before anyone asks', async () => {
    let t = 0;
    const cache = new LiveCache({ now: () => t, refreshEveryMs: 0 });
    let n = 0;
    await cache.get('k', 1_500, async () => ({ n: ++n }), { watchMs: 10_000 });
    let derives = 0;
    const derive = (v: unknown) => {
      derives++;
      return JSON.stringify(v);
    };
    expect(cache.derived('k', 'json', derive)).toBe('{"n":1}');
    expect(cache.derived('k', 'json', derive)).toBe('{"n":1}');
    expect(derives).toBe(1);
    t = 1_300;
    cache.refreshDue();
    await flush();
    expect(derives).toBe(2); // made by the refresh itself
    expect(cache.derived('k', 'json', derive)).toBe('{"n":2}');
    expect(derives).toBe(2);
    t = 10_000; // expired and no longer watched
    expect(cache.derived('k', 'json', derive)).toBeUndefined();
    expect(cache.isFresh('k')).toBe(false);
  });

  it('answers nothing for a key still loading', async () => {
    const cache = new LiveCache({ refreshEveryMs: 0 });
    const { calls, load } = deferredLoads();
    const p = cache.get('k', 1_500, load);
    expect(cache.isFresh('k')).toBe(false);
    expect(cache.derived('k', 'x', String)).toBeUndefined();
    calls[0].resolve('v');
    await p;
    expect(cache.isFresh('k')).toBe(true);
  });

  it('is one instance for every copy of the module in the process', () => {
    expect(sharedLiveCache()).toBe(sharedLiveCache());
    const g = globalThis as Record<symbol, unknown>;
    expect(g[Symbol.for('bullpen.dashboard.liveCache')]).toBe(sharedLiveCache());
  });
});
