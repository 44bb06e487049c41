import 'server-only';
import { hourOf, MINUTE_POINTS } from '@/lib/metrics/history-layout';
import { type HourCounts, minutesByHour } from './history-series';

const MINUTE = 60_000;

/** Reads the newest `n` minutes of a queue's per-minute counters, oldest first, ending with the minute of `nowMs`. */
export type MinuteReader = (n: number, nowMs: number) => Promise<{ completed: number[]; failed: number[] }>;

interface Entry {
  /** The oldest hour held, and the newest hour held as final. */
  from: number;
  through: number;
  hours: Map<number, HourCounts>;
}

/**
 * BullMQ's per-minute counters summed by hour, per queue, kept by the process. A minute's
 * count is final once the minute has passed (BullMQ attributes each finished job to the
 * minute it finished in), so an hour two hours back never changes: a second read of the
 * same range asks Redis only for the minutes since the last final hour held, instead of
 * up to two weeks of minutes. Bounded: what BullMQ keeps, per queue.
 */
export class MinuteHours {
  private readonly entries = new Map<string, Entry>();

  /** The hour sums from `fromHour` to now, reading as few minutes as the held hours allow. */
  async read(queue: string, fromHour: number, nowMs: number, readMinutes: MinuteReader): Promise<Map<number, HourCounts>> {
    const nowMin = Math.floor(nowMs / MINUTE);
    const oldestKept = hourOf((nowMin - MINUTE_POINTS + 1) * MINUTE);
    const from = Math.max(fromHour, oldestKept);
    const held = this.entries.get(queue);
    const reuse = held !== undefined && held.from <= from && held.through >= from;
    const readFrom = reuse ? held.through + 1 : from;
    const n = Math.min(MINUTE_POINTS, nowMin - readFrom * 60 + 1);
    const { completed, failed } = await readMinutes(n, nowMs);
    const fresh = minutesByHour(completed, failed, (nowMin - n + 1) * MINUTE);
    const out = new Map<number, HourCounts>();
    if (reuse) for (const [h, c] of held.hours) if (h >= from) out.set(h, c);
    // A partly read first hour (at the edge of what BullMQ keeps) is as complete as it can be.
    for (const [h, c] of fresh) if (h >= readFrom) out.set(h, c);
    // Final: two hours back, a margin for the clocks of the dashboard and the workers.
    const through = hourOf(nowMs) - 2;
    const keep = new Map<number, HourCounts>();
    for (const [h, c] of out) if (h <= through) keep.set(h, c);
    if (through >= from) this.entries.set(queue, { from, through, hours: keep });
    return out;
  }
}
