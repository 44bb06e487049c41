import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisWatch, unreachableSentence } from '@/lib/health/redis-watch';

/** A PING whose replies the test gives, one promise per call. */
function pings() {
  const calls: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const ping = () =>
    new Promise<unknown>((resolve, reject) => {
      calls.push({ resolve: () => resolve('PONG'), reject });
    });
  return { calls, ping };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RedisWatch: whether Redis answers, and since when', () => {
  it('marks a hung server unreachable once a PING goes unanswered past its limit, and sends no second PING behind it', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { calls, ping } = pings();
    const watch = new RedisWatch(ping, { intervalMs: 1_000, timeoutMs: 1_500 });
    expect(watch.state().reachable).toBe(true);
    expect(calls).toHaveLength(1);
    calls[0].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.state()).toMatchObject({ reachable: true });

    // SIGSTOP: the next PING never answers.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(2);
    const stoppedAt = Date.now();
    await vi.advanceTimersByTimeAsync(1_499);
    expect(watch.state().reachable).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(watch.state()).toMatchObject({ reachable: false, reason: 'timeout', since: stoppedAt + 1_500 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(2);
    expect(watch.state().since).toBe(stoppedAt + 1_500);

    // SIGCONT: the queued PING answers, and the state clears by itself.
    calls[1].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.state()).toMatchObject({ reachable: true, since: Date.now() });
    watch.close();
  });

  it('marks a refused connection unreachable at once, keeps the first failure as since, and clears on the first answer', async () => {
    vi.useFakeTimers({ now: 5_000_000 });
    const { calls, ping } = pings();
    const watch = new RedisWatch(ping, { intervalMs: 1_000, timeoutMs: 1_500 });
    watch.state();
    calls[0].reject(new Error('connect ECONNREFUSED'));
    await vi.advanceTimersByTimeAsync(0);
    const since = Date.now();
    expect(watch.state()).toMatchObject({ reachable: false, reason: 'error', since });
    await vi.advanceTimersByTimeAsync(1_000);
    calls[1].reject(new Error('connect ECONNREFUSED'));
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.state().since).toBe(since);
    await vi.advanceTimersByTimeAsync(1_000);
    calls[2].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.state().reachable).toBe(true);
    watch.close();
  });

  it('takes a read that timed out as an outage, which only an answered PING ends', async () => {
    vi.useFakeTimers({ now: 0 });
    const { calls, ping } = pings();
    const watch = new RedisWatch(ping, { intervalMs: 1_000, timeoutMs: 1_500 });
    watch.state();
    calls[0].resolve();
    await vi.advanceTimersByTimeAsync(0);
    watch.markUnreachable('timeout');
    expect(watch.state()).toMatchObject({ reachable: false, reason: 'timeout', since: 0 });
    await vi.advanceTimersByTimeAsync(1_000);
    calls[1].resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(watch.state().reachable).toBe(true);
    watch.close();
  });

  it('wakes the reads in flight when Redis goes away, so they answer then rather than at their own limit', async () => {
    vi.useFakeTimers({ now: 0 });
    const { calls, ping } = pings();
    const watch = new RedisWatch(ping, { intervalMs: 1_000, timeoutMs: 1_500 });
    watch.state();
    calls[0].resolve();
    await vi.advanceTimersByTimeAsync(0);
    let woken = 0;
    const read = watch.untilUnreachable();
    void read.promise.then(() => woken++);
    const done = watch.untilUnreachable();
    void done.promise.then(() => woken++);
    done.cancel();
    await vi.advanceTimersByTimeAsync(1_000); // the next PING goes out, and hangs
    expect(woken).toBe(0);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(woken).toBe(1);
    // Already away: a new read learns it at once.
    let late = false;
    await watch.untilUnreachable().promise.then(() => (late = true));
    expect(late).toBe(true);
    watch.close();
  });

  it('sends nothing once nobody has asked for watchMs', async () => {
    vi.useFakeTimers({ now: 0 });
    const { calls, ping } = pings();
    const watch = new RedisWatch(ping, { intervalMs: 1_000, timeoutMs: 500, watchMs: 3_000 });
    watch.state();
    for (const c of calls) c.resolve();
    for (let i = 0; i < 10; i++) {
      await vi.advanceTimersByTimeAsync(1_000);
      for (const c of calls) c.resolve();
    }
    expect(calls.length).toBeLessThanOrEqual(4);
    watch.close();
  });

  it('says when in one sentence, in UTC', () => {
    expect(unreachableSentence({ since: Date.parse('2026-11-27T09:41:18.500Z') })).toBe('Redis unreachable since 09:41:18 UTC');
  });
});
