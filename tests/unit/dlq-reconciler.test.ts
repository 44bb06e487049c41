import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadLetterReconciler, type ReconcilerOptions } from '@/lib/dlq/reconciler';
import type { Logger } from '@/lib/logging/logger';
import { Keyspace } from '@/lib/redis/keys';

/** A logger that records its child's bindings and each line. */
function recordingLogger() {
  const lines: Array<[string, unknown, string]> = [];
  const children: unknown[] = [];
  const logger = {
    child: (b: unknown) => (children.push(b), logger),
    warn: (o: unknown, m: string) => void lines.push(['warn', o, m]),
    error: (o: unknown, m: string) => void lines.push(['error', o, m]),
  };
  return { logger: logger as unknown as Logger, lines, children };
}

/**
 * The reconciler's own rules without Redis: its bounds, its one sweep at a time and its
 * timer. What a sweep records is tested against Redis (tests/integration/dlq-reconciler*.test.ts).
 */
function reconciler(opts: Partial<ReconcilerOptions> = {}) {
  return new DeadLetterReconciler({
    sink: { record: async () => ({ id: 'x', created: true }) },
    queues: { jobs: { names: [] } } as never,
    redis: {} as never,
    keys: new Keyspace('t'),
    types: [],
    ...opts,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DeadLetterReconciler’s bounds (lib/dlq/reconciler.ts)', () => {
  it('takes a page of 1 to 1,000 and a budget of at least one page, and says which rule a value broke', () => {
    expect(() => reconciler({ pageSize: 0 })).toThrow('pageSize must be an integer from 1 to 1000, got 0');
    expect(() => reconciler({ pageSize: 1_001 })).toThrow('pageSize must be an integer from 1 to 1000, got 1001');
    expect(() => reconciler({ pageSize: 2.5 })).toThrow(/pageSize must be an integer/);
    expect(() => reconciler({ pageSize: 1, maxPerQueue: 1 })).not.toThrow();
    expect(() => reconciler({ pageSize: 1_000, maxPerQueue: 1_000 })).not.toThrow();
    expect(() => reconciler({ pageSize: 10, maxPerQueue: 9 })).toThrow('maxPerQueue must be an integer of at least pageSize (10), got 9');
    expect(() => reconciler({ pageSize: 10, maxPerQueue: 10.5 })).toThrow(/maxPerQueue must be an integer/);
    // The defaults: a page of 100, a budget of 1,000.
    expect(() => reconciler({ maxPerQueue: 99 })).toThrow('maxPerQueue must be an integer of at least pageSize (100), got 99');
    expect(() => reconciler({ maxPerQueue: 100 })).not.toThrow();
    expect(() => reconciler({ pageSize: 1_000 })).not.toThrow();
    expect(() => reconciler({ pageSize: 1_000, maxPerQueue: 999 })).toThrow(/at least pageSize/);
  });

  it('logs as its own component', () => {
    const { logger, children } = recordingLogger();
    reconciler({ logger });
    expect(children).toEqual([{ component: 'dlq-reconciler' }]);
  });

  it('runs on an interval of at least a second, and says so', () => {
    const r = reconciler();
    expect(() => r.startReconciler(999)).toThrow('The reconciler interval must be at least 1000 ms, got 999');
    expect(() => r.startReconciler(1_000.5)).toThrow(/at least 1000 ms/);
  });
});

describe('DeadLetterReconciler’s runs', () => {
  it('shares a sweep in progress with a second caller, and starts a new one after it', async () => {
    const r = reconciler();
    const first = r.reconcileOnce();
    expect(r.reconcileOnce()).toBe(first);
    expect(await first).toEqual({ scanned: 0, recovered: 0 });
    const second = r.reconcileOnce();
    expect(second).not.toBe(first);
    await second;
  });

  it('sweeps the queues of the job table when no types are given', async () => {
    const asked: string[] = [];
    const r = reconciler({
      types: undefined,
      queues: {
        jobs: { names: ['a', 'b'] },
        get: (t: string) => {
          asked.push(t);
          throw new Error(`stop at ${t}`);
        },
      } as never,
    });
    await expect(r.reconcileOnce()).rejects.toThrow('stop at a');
    expect(asked).toEqual(['a']);
  });

  it('sweeps at once and every interval, logs a failed sweep without throwing, and stops', async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    let sweeps = 0;
    const r = reconciler({
      logger,
      types: ['a'],
      queues: {
        jobs: { names: ['a'] },
        get: () => {
          sweeps++;
          throw new Error('redis away');
        },
      } as never,
    });
    const stop = r.startReconciler(1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toBe(1);
    expect(lines).toEqual([['error', { err: expect.any(Error) }, 'dead-letter reconciliation failed; will retry']]);
    await vi.advanceTimersByTimeAsync(999);
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweeps).toBe(2);
    await stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toBe(2);
  });

  it('stopped during a sweep, waits for it and sets no timer after it', async () => {
    vi.useFakeTimers();
    let release!: (ids: string[]) => void;
    let sweeps = 0;
    const r = reconciler({
      types: ['a'],
      queues: { jobs: { names: ['a'], get: () => ({}) }, get: () => ({ keys: { failed: 'failed' } }) } as never,
      redis: {
        zrevrange: () => {
          sweeps++;
          return new Promise<string[]>((resolve) => {
            release = resolve;
          });
        },
        hdel: async () => 1,
      } as never,
    });
    const stop = r.startReconciler(1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toBe(1);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release([]);
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toBe(1);
  });
});
