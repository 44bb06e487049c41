import 'server-only';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { emptyHistogram, mergeInto, summariseHistogram, type Histogram } from '@/lib/metrics/history-buckets';
import { HOUR_MS, hourOf } from '@/lib/metrics/history-layout';
import { readHistoryHours, type HourRecord } from '@/lib/metrics/history-store';
import { seriesPointSchema, toCounts, toSeries, type SeriesPoint } from '@/dashboard/client/chart-series';
import { countFinished, isEmptySeries } from './finished-series';
import { HISTORY_RANGES, type HistoryRange, RANGE_SPEC } from '@/dashboard/client/history-range';
import { MinuteHours } from './history-minute-hours';
import { latencyFromHour, mergeHourCounts, minutesNeeded, rangeHours, toHourlySeries } from './history-series';
import { resolveQueue } from '@/dashboard/queues/queue-ref';

const MINUTE = 60_000;
/** Finish times read per state to count a foreign queue's history: bounds one read whatever the queue keeps. */
export const FINISHED_COUNTED = 10_000;

const estimateSchema = z.object({ ms: z.number().min(0), atLeast: z.boolean() });
export const latencySchema = z
  .object({ count: z.number().int().min(0), p50: estimateSchema, p95: estimateSchema, p99: estimateSchema })
  .nullable();
export type Latency = z.infer<typeof latencySchema>;

export const queueLatencySchema = z.object({
  queue: z.string(),
  completed: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** The handler's run time per attempt. */
  duration: latencySchema,
  /** First attempts' wait from when they could run to their start. */
  wait: latencySchema,
  /** Whether the hourly roll-up holds anything of this queue in the range (false: a foreign queue, or history off). */
  recorded: z.boolean(),
});
export type QueueLatency = z.infer<typeof queueLatencySchema>;

const historyBase = z.object({
  range: z.enum(HISTORY_RANGES),
  stepMs: z.number().int().positive(),
  series: z.array(seriesPointSchema),
  totals: z.object({ completed: z.number().int().min(0), failed: z.number().int().min(0) }),
  /** Start (epoch ms) of the first hour the percentiles cover. */
  latencySince: z.number().int(),
  /**
   * Where the counts come from: BullMQ's per-minute metrics and Bullpen's roll-up, or (a
   * foreign queue whose workers record no metrics) the finished jobs BullMQ still keeps,
   * at most FINISHED_COUNTED per state; `capped` when that bound cut the count.
   */
  counted: z.object({ from: z.enum(['metrics', 'finished-jobs']), capped: z.boolean() }).optional(),
  generatedAt: z.number().int(),
});

export const queueHistorySchema = historyBase.extend({ latency: queueLatencySchema });
export type QueueHistory = z.infer<typeof queueHistorySchema>;

export const overallHistorySchema = historyBase.extend({ queues: z.array(queueLatencySchema) });
export type OverallHistory = z.infer<typeof overallHistorySchema>;

/** Each Bullpen's (each key prefix's) per-minute hour sums, held between reads. */
const minuteHours = new WeakMap<Bullpen, MinuteHours>();

interface OneQueue {
  series: SeriesPoint[];
  latency: QueueLatency;
}

/**
 * One queue's history over `range`: its throughput and failures per step and its run-time
 * and wait percentiles. The last hour comes from BullMQ's per-minute counters; longer ranges
 * from the hourly roll-up, with hours it has no record of filled from the per-minute
 * counters while BullMQ still keeps them (dashboard/history/history-series.ts). The
 * percentiles always come from the roll-up's histograms.
 */
export async function readQueueHistory(bullpen: Bullpen, ref: string, range: HistoryRange, nowMs: number): Promise<QueueHistory> {
  const resolved = await resolveQueue(bullpen, ref);
  // A foreign queue's workers are not Bullpen's: it has no roll-up, only what BullMQ counts.
  const one = await readOne(bullpen, resolved.ref, resolved.queue, resolved.foreign ? undefined : resolved.name, range, nowMs);
  if (!resolved.foreign || !isEmptySeries(one.series)) return { ...frame(range, nowMs, one.series), latency: one.latency };
  // No metrics recorded (its workers are not Bullpen's): count what BullMQ keeps of its finished jobs.
  const { series, capped } = await fromFinishedJobs(bullpen, resolved.queue, one.series, RANGE_SPEC[range].stepMs);
  const latency = {
    ...one.latency,
    completed: series.reduce((s, p) => s + p.completed, 0),
    failed: series.reduce((s, p) => s + p.failed, 0),
  };
  return { ...frame(range, nowMs, series), latency, counted: { from: 'finished-jobs', capped } };
}

/** The steps of `series` counted from the finish times in the queue's completed and failed sets (ZRANGEBYSCORE, bounded). */
async function fromFinishedJobs(
  bullpen: Bullpen,
  queue: Queue,
  series: SeriesPoint[],
  stepMs: number,
): Promise<{ series: SeriesPoint[]; capped: boolean }> {
  if (series.length === 0) return { series, capped: false };
  const from = series[0].t;
  const to = series[series.length - 1].t + stepMs;
  const client = bullpen.redis;
  const times = async (state: 'completed' | 'failed') => {
    const reply = await client.zrangebyscore(queue.toKey(state), from, `(${to}`, 'WITHSCORES', 'LIMIT', 0, FINISHED_COUNTED);
    const out: number[] = [];
    for (let i = 1; i < reply.length; i += 2) out.push(Number(reply[i]));
    return out;
  };
  const [completed, failed] = await Promise.all([times('completed'), times('failed')]);
  return {
    series: countFinished(series, stepMs, { completed, failed }),
    capped: completed.length === FINISHED_COUNTED || failed.length === FINISHED_COUNTED,
  };
}

/**
 * Every queue of the job table: the summed chart and each queue's counts and percentiles.
 * `lastHour`: each queue's last 60 minutes already read for the same `nowMs` (the overview's
 * own series), so the 1 h range does not read BullMQ's counters a second time.
 */
export async function readOverallHistory(
  bullpen: Bullpen,
  range: HistoryRange,
  nowMs: number,
  lastHour?: ReadonlyMap<string, SeriesPoint[]>,
): Promise<OverallHistory> {
  const all = await Promise.all(
    bullpen.jobs.names.map((t) => readOne(bullpen, t, bullpen.queues.get(t), t, range, nowMs, lastHour?.get(t))),
  );
  const series = all[0]?.series.map((p, i) => ({
    t: p.t,
    completed: all.reduce((s, q) => s + (q.series[i]?.completed ?? 0), 0),
    failed: all.reduce((s, q) => s + (q.series[i]?.failed ?? 0), 0),
  }));
  return { ...frame(range, nowMs, series ?? []), queues: all.map((q) => q.latency) };
}

function frame(range: HistoryRange, nowMs: number, series: SeriesPoint[]) {
  return {
    range,
    stepMs: RANGE_SPEC[range].stepMs,
    series,
    totals: {
      completed: series.reduce((s, p) => s + p.completed, 0),
      failed: series.reduce((s, p) => s + p.failed, 0),
    },
    latencySince: latencyFromHour(range, nowMs) * HOUR_MS,
    generatedAt: nowMs,
  };
}

async function readOne(
  bullpen: Bullpen,
  ref: string,
  queue: Queue,
  rolledUp: string | undefined,
  range: HistoryRange,
  nowMs: number,
  lastHour?: SeriesPoint[],
): Promise<OneQueue> {
  const nowHour = hourOf(nowMs);
  const latencyFrom = latencyFromHour(range, nowMs);
  const span = range === '1h' ? { fromHour: latencyFrom, toHour: nowHour, stepHours: 1 } : rangeHours(range, nowMs);
  const hours = rolledUp
    ? await readHistoryHours(bullpen.redis, bullpen.keys, rolledUp, Math.min(span.fromHour, latencyFrom), nowHour)
    : new Map<number, HourRecord>();

  let series: SeriesPoint[];
  if (range === '1h' && lastHour?.length === RANGE_SPEC['1h'].points) {
    series = lastHour;
  } else if (range === '1h') {
    const [completed, failed] = await Promise.all([queue.getMetrics('completed', 0, 59), queue.getMetrics('failed', 0, 59)]);
    series = toSeries({ completed, failed }, nowMs);
  } else {
    const missing: number[] = [];
    for (let h = span.fromHour; h <= span.toHour; h++) if (!hours.has(h)) missing.push(h);
    const n = minutesNeeded(missing, nowMs);
    let minutes: Map<number, { completed: number; failed: number }> | undefined;
    if (n > 0) {
      let held = minuteHours.get(bullpen);
      if (!held) {
        held = new MinuteHours();
        minuteHours.set(bullpen, held);
      }
      minutes = await held.read(ref, hourOf(nowMs - (n - 1) * MINUTE), nowMs, async (count, now) => {
        const [completed, failed] = await Promise.all([
          queue.getMetrics('completed', 0, count - 1),
          queue.getMetrics('failed', 0, count - 1),
        ]);
        return { completed: toCounts(completed, now, count), failed: toCounts(failed, now, count) };
      });
    }
    const counts = mergeHourCounts(span.fromHour, span.toHour, hours, minutes);
    series = toHourlySeries(counts, span.fromHour, span.stepHours, RANGE_SPEC[range].points);
  }

  const duration: Histogram = emptyHistogram();
  const wait: Histogram = emptyHistogram();
  let recorded = false;
  for (const [h, rec] of hours) {
    if (h < latencyFrom) continue;
    recorded = true;
    mergeInto(duration, rec.duration);
    mergeInto(wait, rec.wait);
  }
  return {
    series,
    latency: {
      queue: ref,
      completed: series.reduce((s, p) => s + p.completed, 0),
      failed: series.reduce((s, p) => s + p.failed, 0),
      duration: summariseHistogram(duration),
      wait: summariseHistogram(wait),
      recorded,
    },
  };
}
