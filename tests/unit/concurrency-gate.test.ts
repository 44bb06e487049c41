import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '@/dashboard/auth/concurrency-gate';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ran',
    (e: { code: string; details?: { scope?: string } }) => `${e.code}:${e.details?.scope}`,
  );

describe('ConcurrencyGate', () => {
  it('runs `limit` at once, queues `maxWaiting`, refuses the next as busy', async () => {
    const gate = new ConcurrencyGate({ limit: 1, maxWaiting: 1, busyMessage: 'busy' });
    const hold = deferred();
    const first = outcome(gate.run(() => hold.promise));
    const second = outcome(gate.run(async () => undefined));
    const third = outcome(gate.run(async () => undefined));
    expect(await third).toBe('RATE_LIMITED:busy');
    expect(gate.load).toEqual({ active: 1, waiting: 1 });
    hold.resolve();
    expect([await first, await second]).toEqual(['ran', 'ran']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('a priority caller goes ahead of ordinary waiters and, when the room is full, displaces the newest of them', async () => {
    const gate = new ConcurrencyGate({ limit: 1, maxWaiting: 2, busyMessage: 'busy' });
    const hold = deferred();
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
    };
    const first = outcome(gate.run(() => hold.promise));
    const a = outcome(gate.run(task('a')));
    const b = outcome(gate.run(task('b')));
    const vip = outcome(gate.run(task('vip'), { priority: true }));
    expect(await b).toBe('RATE_LIMITED:busy');
    hold.resolve();
    expect([await first, await a, await vip]).toEqual(['ran', 'ran', 'ran']);
    expect(order).toEqual(['vip', 'a']);
  });

  it('a priority caller is refused when every waiter has priority too', async () => {
    const gate = new ConcurrencyGate({ limit: 1, maxWaiting: 1, busyMessage: 'busy' });
    const hold = deferred();
    const first = outcome(gate.run(() => hold.promise));
    const p1 = outcome(gate.run(async () => undefined, { priority: true }));
    expect(await outcome(gate.run(async () => undefined, { priority: true }))).toBe('RATE_LIMITED:busy');
    hold.resolve();
    expect([await first, await p1]).toEqual(['ran', 'ran']);
  });
});
