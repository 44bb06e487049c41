import { describe, expect, it } from 'vitest';
import { MinuteHours, type MinuteReader } from '@/dashboard/history/history-minute-hours';
import { minutesByHour } from '@/dashboard/history/history-series';
import { MINUTE_POINTS } from '@/lib/metrics/history-layout';

const MIN = 60_000;
const HOUR = 3_600_000;
const H = 480_000;
const now = H * HOUR + 25 * MIN;

/** A queue whose minute m finished m % 7 jobs and failed one every 11th minute. */
const completedAt = (m: number) => m % 7;
const failedAt = (m: number) => (m % 11 === 0 ? 1 : 0);

function reader(calls: number[]): MinuteReader {
  return async (n, at) => {
    calls.push(n);
    const last = Math.floor(at / MIN);
    const minutes = Array.from({ length: n }, (_, i) => last - n + 1 + i);
    return { completed: minutes.map(completedAt), failed: minutes.map(failedAt) };
  };
}

/** The hour sums read the long way: every minute from `fromHour` to `at`. */
function direct(fromHour: number, at: number) {
  const last = Math.floor(at / MIN);
  const minutes = Array.from({ length: last - fromHour * 60 + 1 }, (_, i) => fromHour * 60 + i);
  return minutesByHour(minutes.map(completedAt), minutes.map(failedAt), fromHour * HOUR);
}

describe('MinuteHours', () => {
  it('reads every minute once, then only the minutes since the last final hour, with the same sums', async () => {
    const calls: number[] = [];
    const held = new MinuteHours();
    const first = await held.read('q', H - 48, now, reader(calls));
    expect(calls).toEqual([48 * 60 + 26]);
    expect(first).toEqual(direct(H - 48, now));

    const later = now + 10 * MIN;
    const second = await held.read('q', H - 48, later, reader(calls));
    // Hours up to H-2 are final and held: only H-1 and H are read again.
    expect(calls[1]).toBe(60 + 36);
    expect(second).toEqual(direct(H - 48, later));
  });

  it('reads in full again for a range older than what it holds, and per queue', async () => {
    const calls: number[] = [];
    const held = new MinuteHours();
    await held.read('q', H - 5, now, reader(calls));
    await held.read('q', H - 30, now, reader(calls));
    await held.read('other', H - 5, now, reader(calls));
    expect(calls).toEqual([5 * 60 + 26, 30 * 60 + 26, 5 * 60 + 26]);
  });

  it('never asks for more minutes than BullMQ keeps', async () => {
    const calls: number[] = [];
    await new MinuteHours().read('q', H - 30 * 24, now, reader(calls));
    expect(calls).toEqual([MINUTE_POINTS]);
  });
});
