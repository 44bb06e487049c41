import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPeriodic } from '@/lib/runtime/periodic';

describe('startPeriodic', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the task once per interval after the previous run ended, never two at once', async () => {
    let running = 0;
    let most = 0;
    const starts: number[] = [];
    let finish: () => void = () => {};
    const stop = startPeriodic(1_000, async () => {
      starts.push(Date.now());
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      running--;
    });
    const t0 = Date.now();
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([t0 + 1_000]);
    // A slow run: no second one starts while it lasts.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(starts).toHaveLength(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toEqual([t0 + 1_000, t0 + 7_000]);
    expect(most).toBe(1);
    finish();
    await stop();
  });

  it('stop waits for a run under way and no run starts after it', async () => {
    let finish: () => void = () => {};
    let runs = 0;
    let ended = false;
    const stop = startPeriodic(1_000, async () => {
      runs++;
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(ended).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });

  it('refuses an interval under a second', () => {
    expect(() => startPeriodic(999, async () => {})).toThrow(/at least 1000 ms, got 999/);
  });
});
