import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimeoutError } from '@/lib/errors/timeout-error';
import { AttemptDeadlines, type TimedAttempt } from '@/lib/runtime/attempt-deadlines';

/** An attempt that notes when it was stopped (the fake clock's ms) and why. */
function attempt(name: string, stopped: Array<{ name: string; at: number; reason: unknown }>): TimedAttempt {
  return { abortWith: (reason) => void stopped.push({ name, at: performance.now(), reason }) };
}

describe('the time limits of a type’s attempts, one timer for all (lib/runtime/attempt-deadlines.ts)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops each attempt at its own deadline, in the order they started', () => {
    const stopped: Array<{ name: string; at: number; reason: unknown }> = [];
    const deadlines = new AttemptDeadlines(100);
    const t0 = performance.now();
    deadlines.add(attempt('a', stopped));
    vi.advanceTimersByTime(30);
    deadlines.add(attempt('b', stopped));
    vi.advanceTimersByTime(69);
    expect(stopped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stopped.map((s) => [s.name, s.at - t0])).toEqual([['a', 100]]);
    expect(stopped[0].reason).toBeInstanceOf(TimeoutError);
    expect((stopped[0].reason as TimeoutError).message).toContain('100');
    vi.advanceTimersByTime(30);
    expect(stopped.map((s) => [s.name, s.at - t0])).toEqual([
      ['a', 100],
      ['b', 130],
    ]);
    expect(deadlines.size).toBe(0);
  });

  it('never stops an attempt that left, wherever it stood in the line', () => {
    const stopped: Array<{ name: string; at: number; reason: unknown }> = [];
    const deadlines = new AttemptDeadlines(50);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => attempt(n, stopped));
    for (const x of [a, b, c, d]) {
      deadlines.add(x);
      vi.advanceTimersByTime(5);
    }
    deadlines.remove(b); // the middle
    deadlines.remove(a); // the first, whose deadline the timer is set for
    deadlines.remove(d); // the last
    deadlines.remove(d); // twice: nothing
    expect(deadlines.size).toBe(1);
    vi.advanceTimersByTime(100);
    expect(stopped.map((s) => s.name)).toEqual(['c']);
  });

  it('stops every attempt whose time ran out when the timer fires, and no other', () => {
    const stopped: Array<{ name: string; at: number; reason: unknown }> = [];
    const deadlines = new AttemptDeadlines(20);
    for (const n of ['a', 'b', 'c']) deadlines.add(attempt(n, stopped));
    vi.advanceTimersByTime(1);
    deadlines.add(attempt('late', stopped));
    vi.advanceTimersByTime(19);
    expect(stopped.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    vi.advanceTimersByTime(1);
    expect(stopped.map((s) => s.name)).toEqual(['a', 'b', 'c', 'late']);
  });

  it('holds no timer while no attempt runs, so it keeps no process up', () => {
    const stopped: Array<{ name: string; at: number; reason: unknown }> = [];
    const deadlines = new AttemptDeadlines(60_000);
    const a = attempt('a', stopped);
    deadlines.add(a);
    expect(vi.getTimerCount()).toBe(1);
    deadlines.add(attempt('b', stopped));
    expect(vi.getTimerCount()).toBe(1);
    deadlines.remove(a);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(stopped.map((s) => s.name)).toEqual(['b']);
    expect(vi.getTimerCount()).toBe(0);
    const c = attempt('c', stopped);
    deadlines.add(c);
    deadlines.remove(c);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sets its timer again when it fires before the first deadline, as the event loop’s clock allows', () => {
    const stopped: Array<{ name: string; at: number; reason: unknown }> = [];
    const deadlines = new AttemptDeadlines(10);
    const a = attempt('a', stopped);
    deadlines.add(a);
    // The loop's clock lags: the timer fires while the deadline is still 3 ms away.
    (a as { deadline: number }).deadline += 3;
    vi.advanceTimersByTime(10);
    expect(stopped).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(3);
    expect(stopped.map((s) => s.name)).toEqual(['a']);
  });
});
