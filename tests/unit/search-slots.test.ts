import { describe, expect, it } from 'vitest';
import { SEARCHES_PER_PROCESS, SEARCHES_PER_USER, SearchSlots } from '@/dashboard/queues/search-slots';

/** A step that runs until `finish` is called. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return { step: () => done.then(() => 'ok'), finish };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SearchSlots', () => {
  it(`runs ${SEARCHES_PER_USER} searches per user at once and refuses the next with RATE_LIMITED`, async () => {
    const slots = new SearchSlots();
    const steps = Array.from({ length: SEARCHES_PER_USER }, held);
    const running = steps.map((s) => slots.run('ann', s.step));
    await expect(slots.run('ann', async () => 'ran')).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // Another user is not held back by ann's searches.
    await expect(slots.run('bob', async () => 'ran')).resolves.toBe('ran');
    steps[0].finish();
    await running[0];
    await expect(slots.run('ann', async () => 'ran')).resolves.toBe('ran');
    for (const s of steps) s.finish();
    await Promise.all(running);
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it(`runs ${SEARCHES_PER_PROCESS} searches per process at once; the next waits its turn, and a failing step frees its slot`, async () => {
    const slots = new SearchSlots();
    const steps = Array.from({ length: SEARCHES_PER_PROCESS }, held);
    const running = steps.map((s, i) => slots.run(`user${i}`, s.step));
    let started = false;
    const next = slots.run('late', async () => {
      started = true;
      return 'late ran';
    });
    await tick();
    expect(slots.load).toEqual({ running: SEARCHES_PER_PROCESS, waiting: 1 });
    expect(started).toBe(false);
    steps[0].finish();
    await expect(next).resolves.toBe('late ran');
    await expect(slots.run('oops', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    for (const s of steps) s.finish();
    await Promise.all(running);
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses at once when the waiting room is full, and rejects bad bounds', async () => {
    const slots = new SearchSlots({ perUser: 1, perProcess: 1 });
    const first = held();
    const running = slots.run('u0', first.step);
    const waiting = Array.from({ length: 16 }, (_, i) => slots.run(`w${i}`, async () => i));
    await expect(slots.run('one-too-many', async () => 0)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    first.finish();
    await running;
    await Promise.all(waiting);
    expect(() => new SearchSlots({ perUser: 0 })).toThrow(RangeError);
  });
});
