import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { readOverallHistory, readQueueHistory } from '@/dashboard/history/queue-history';
import { readOverview } from '@/dashboard/queues/queue-overview';
import { PermanentError } from '@/lib/errors/permanent-error';
import { silentLogger } from '@/lib/logging/logger';
import { bucketOf, HISTOGRAM_BUCKETS } from '@/lib/metrics/history-buckets';
import { FIELD, HISTORY_MAX_FIELDS, HISTORY_RETENTION_MS, HOUR_MS, historyKey, hourOf } from '@/lib/metrics/history-layout';
import { HistoryRecorder } from '@/lib/metrics/history-recorder';
import { readHistoryHours } from '@/lib/metrics/history-store';
import type { JobContext } from '@/lib/runtime/handler';
import type { RunningWorker } from '@/lib/runtime/worker-process';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { clusterBullpen, startTestCluster, type TestCluster } from '../helpers/redis-cluster';
import { testApp } from '../helpers/test-app';
import { useTestRedis } from '../helpers/use-test-redis';

const TYPE = 'notify';

/** Sums every hour hash of a queue the roll-up wrote (a test's prefix holds only its own). */
async function rolledUp(bullpen: Bullpen, queue: string) {
  const now = Date.now();
  const hours = await readHistoryHours(bullpen.redis, bullpen.keys, queue, hourOf(now) - 2, hourOf(now));
  let completed = 0;
  let failed = 0;
  for (const h of hours.values()) {
    completed += h.completed;
    failed += h.failed;
  }
  return { hours, completed, failed };
}

describe('the hourly history', () => {
  const server = useTestRedis();
  const running: RunningWorker[] = [];
  afterEach(async () => {
    for (const w of running.splice(0)) await w.stop(5_000);
  });

  /** The production worker process on this test's prefix, running `handler` for notify. */
  async function startWorker(bullpen: Bullpen, handler: (ctx: JobContext) => Promise<unknown>, env: Record<string, string> = {}) {
    const worker = await startAppWorker(testApp, {
      config: loadConfig({ LOG_LEVEL: 'silent', WORKER_TYPES: TYPE, ...env }),
      redis: bullpen.target,
      prefix: bullpen.keys.root,
      logger: silentLogger,
      handlers: { [TYPE]: handler },
      concurrency: 10,
      metricsServer: false,
      maintenance: false,
    });
    running.push(worker);
    return worker;
  }

  const sleepFor = (ctx: JobContext) => {
    const { payload } = ctx.data as { payload: { sleepMs?: number; fail?: boolean } };
    if (payload.fail) throw new PermanentError('refused by the test');
    return new Promise((r) => setTimeout(r, payload.sleepMs ?? 0));
  };

  it('counts a worker’s jobs by hour and puts their run times and waits in the right buckets', async () => {
    const bullpen = await server.readyBullpen();
    const worker = await startWorker(bullpen, sleepFor);
    const send = (payload: Record<string, unknown>, delayMs?: number) =>
      bullpen.dispatcher.dispatch(TYPE, { webhookId: 'w', event: 'e', payload }, delayMs ? { delayMs } : {});
    // 36 quick jobs, 4 slow ones, 3 permanent failures, and one job delayed by 3 s.
    for (let i = 0; i < 36; i++) await send({ sleepMs: 20 });
    for (let i = 0; i < 4; i++) await send({ sleepMs: 300 });
    for (let i = 0; i < 3; i++) await send({ fail: true });
    await send({ sleepMs: 20 }, 3_000);
    const queue = bullpen.queues.get(TYPE);
    await expect
      .poll(async () => (await queue.getJobCounts('completed', 'failed')) as Record<string, number>, { timeout: 30_000 })
      .toEqual({ completed: 41, failed: 3 });
    // An operator retries one failure, which fails again: one more run and failure, no wait
    // (its "wait" since its creation would be the time it spent failed).
    const [failedJob] = await queue.getFailed(0, 0);
    await new JobOperations(bullpen).retry(TYPE, failedJob.id!, 'test');
    await expect
      .poll(
        async () => {
          const again = await queue.getJob(failedJob.id!);
          return (again?.finishedOn ?? 0) > failedJob.finishedOn! && (await again?.getState());
        },
        { timeout: 30_000 },
      )
      .toBe('failed');
    // A stop writes what the recorder still holds.
    await worker.stop(5_000);
    running.length = 0;

    const stored = await rolledUp(bullpen, TYPE);
    expect({ completed: stored.completed, failed: stored.failed }).toEqual({ completed: 41, failed: 4 });

    const h = await readQueueHistory(bullpen, TYPE, '24h', Date.now());
    expect(h.totals).toEqual({ completed: 41, failed: 4 });
    expect(h.series).toHaveLength(24);
    expect(h.series.at(-1)!.completed + (h.series.at(-2)?.completed ?? 0)).toBe(41);
    const { duration, wait } = h.latency;
    expect(h.latency.recorded).toBe(true);
    // Every attempt's run time; the first attempt's wait of every job, not the retried one's.
    expect(duration?.count).toBe(45);
    expect(wait?.count).toBe(44);
    // Rank 23 of 45 is among the 20 ms jobs (4 instant failures sort first); 43 and 45 among the 300 ms ones.
    expect(duration!.p50.ms).toBeGreaterThanOrEqual(20);
    expect(duration!.p50.ms).toBeLessThan(150);
    expect(bucketOf(duration!.p95.ms)).toBeGreaterThanOrEqual(bucketOf(300));
    expect(duration!.p95.ms).toBeLessThan(1_500);
    expect(bucketOf(duration!.p99.ms)).toBeGreaterThanOrEqual(bucketOf(300));
    // The delayed job's 3 s are not a wait: it could not run before them.
    expect(wait!.p99.ms).toBeLessThan(3_000);
  });

  it('fills hours the roll-up lacks from BullMQ’s per-minute counters, and takes the larger where both count', async () => {
    const bullpen = await server.readyBullpen();
    const send = (n: number) =>
      Promise.all(Array.from({ length: n }, () => bullpen.dispatcher.dispatch(TYPE, { webhookId: 'w', event: 'e', payload: {} })));
    const queue = bullpen.queues.get(TYPE);

    // History off (the documented switch): BullMQ still counts per minute, the roll-up writes nothing.
    const off = await startWorker(bullpen, async () => 'ok', { BULLPEN_HISTORY: '0' });
    await send(5);
    await expect.poll(() => queue.getCompletedCount(), { timeout: 20_000 }).toBe(5);
    await off.stop(5_000);
    running.length = 0;
    expect((await rolledUp(bullpen, TYPE)).hours.size).toBe(0);
    const fromMinutes = await readQueueHistory(bullpen, TYPE, '7d', Date.now());
    expect(fromMinutes.totals).toEqual({ completed: 5, failed: 0 });
    expect(fromMinutes.series).toHaveLength(168);
    expect(fromMinutes.latency).toMatchObject({ recorded: false, duration: null, wait: null });

    // History on for three more: the roll-up has 3 this hour, the minutes 8; the chart shows 8.
    await startWorker(bullpen, async () => 'ok');
    await send(3);
    await expect.poll(() => queue.getCompletedCount(), { timeout: 20_000 }).toBe(8);
    await running[0].stop(5_000);
    running.length = 0;
    expect((await rolledUp(bullpen, TYPE)).completed).toBe(3);
    const merged = await readQueueHistory(bullpen, TYPE, '24h', Date.now());
    expect(merged.totals.completed).toBe(8);
    expect(merged.latency.duration?.count).toBe(3);
    // The last hour reads the per-minute counters alone.
    const lastHour = await readQueueHistory(bullpen, TYPE, '1h', Date.now());
    expect(lastHour.series).toHaveLength(60);
    expect(lastHour.totals.completed).toBe(8);
    // All queues over the last hour: read directly, or from the overview's own per-minute series, the same.
    const now = Date.now();
    const overview = await readOverview(bullpen, now);
    const direct = await readOverallHistory(bullpen, '1h', now);
    const viaOverview = await readOverallHistory(bullpen, '1h', now, new Map(overview.queues.map((q) => [q.name, q.series])));
    expect(direct.totals.completed).toBe(8);
    expect(viaOverview.series).toEqual(direct.series);
    expect(viaOverview.queues.find((q) => q.queue === TYPE)).toMatchObject({ completed: 8, recorded: true });
  });

  it('shows an hour older than the per-minute counters in 30 d, at its place, and not in 7 d', async () => {
    const bullpen = await server.readyBullpen();
    const now = Date.now();
    const tenDaysAgo = now - 10 * 24 * HOUR_MS;
    const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => tenDaysAgo });
    for (let i = 0; i < 6; i++) recorder.record(TYPE, 'completed', 40, 5);
    recorder.record(TYPE, 'failed', 900, 5);
    expect(await recorder.flush()).toBe(1);

    const month = await readQueueHistory(bullpen, TYPE, '30d', now);
    expect(month.totals).toEqual({ completed: 6, failed: 1 });
    const point = month.series.find((p) => p.completed > 0)!;
    expect(tenDaysAgo - point.t).toBeGreaterThanOrEqual(0);
    expect(tenDaysAgo - point.t).toBeLessThan(month.stepMs);
    expect(month.latency.duration?.count).toBe(7);
    expect(bucketOf(month.latency.duration!.p50.ms)).toBe(bucketOf(40));
    expect(bucketOf(month.latency.duration!.p99.ms)).toBe(bucketOf(900));
    const week = await readQueueHistory(bullpen, TYPE, '7d', now);
    expect(week.totals).toEqual({ completed: 0, failed: 0 });
    expect(week.latency.duration).toBeNull();
  });

  it('expires each hour 31 days after it ended and bounds a queue-hour at 164 small fields', async () => {
    const bullpen = await server.readyBullpen();
    const hour = hourOf(Date.now());
    const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => hour * HOUR_MS + 1 });
    // The worst case: every bucket of both histograms in use.
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++)
      recorder.record(TYPE, i % 7 === 0 ? 'failed' : 'completed', 10 ** ((i - 0.5) / 10), 10 ** ((i - 0.5) / 10));
    await recorder.flush();
    const key = historyKey(bullpen.keys, TYPE, hour);
    expect(await bullpen.redis.hlen(key)).toBe(HISTORY_MAX_FIELDS);
    expect(HISTORY_MAX_FIELDS).toBe(164);
    expect(await bullpen.redis.pexpiretime(key)).toBe((hour + 1) * HOUR_MS + HISTORY_RETENTION_MS);
    expect(Number(await bullpen.redis.hget(key, FIELD.failed))).toBe(Math.ceil(HISTOGRAM_BUCKETS / 7));
    const bytes = Number(await bullpen.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    // docs/observability.md states the cost: under 4 KiB a queue-hour at worst.
    expect(bytes).toBeLessThan(4_096);
    // Flushing again adds to the same hash and keeps the expiry.
    recorder.record(TYPE, 'completed', 5, undefined);
    await recorder.flush();
    expect(await bullpen.redis.pexpiretime(key)).toBe((hour + 1) * HOUR_MS + HISTORY_RETENTION_MS);
  });

  it('keeps a failed write for the next flush, without counting it twice', async () => {
    const bullpen = await server.readyBullpen();
    // Two hours of one queue in one flush: the earlier one written, the later one refused.
    let clock = Date.now() - 3_600_000;
    const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => clock });
    const earlier = historyKey(bullpen.keys, TYPE, hourOf(clock));
    recorder.record(TYPE, 'completed', 12, 3);
    clock += 3_600_000;
    const key = historyKey(bullpen.keys, TYPE, hourOf(clock));
    recorder.record(TYPE, 'completed', 12, 3);
    // A key of the wrong type: Redis refuses that hour's increments and applies the rest of the MULTI.
    await bullpen.redis.set(key, 'not a hash');
    await expect(recorder.flush()).rejects.toThrow(/WRONGTYPE/);
    expect(await bullpen.redis.hget(earlier, FIELD.completed)).toBe('1');
    await bullpen.redis.del(key);
    recorder.record(TYPE, 'completed', 12, 3);
    expect(await recorder.flush()).toBe(1);
    // The refused hour is written once with both of its jobs; the written one is not written again.
    expect(await bullpen.redis.hget(key, FIELD.completed)).toBe('2');
    expect(await bullpen.redis.hget(earlier, FIELD.completed)).toBe('1');
  });
});

describe('the hourly history on a Redis Cluster', () => {
  let cluster: TestCluster;
  let bullpen: Bullpen;
  beforeAll(async () => {
    cluster = await startTestCluster();
    bullpen = clusterBullpen(cluster, 'hist');
    await bullpen.ready(20_000);
  }, 60_000);
  afterAll(async () => {
    await bullpen?.close();
    await cluster?.stop();
  });

  it('writes each queue’s hours on one slot, the queues on different ones, and reads them back', async () => {
    const now = Date.now();
    const types = ['notify', 'sync', 'tidy'];
    const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => now });
    const earlier = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => now - 2 * HOUR_MS });
    for (const [i, t] of types.entries()) {
      for (let k = 0; k <= i; k++) recorder.record(t, 'completed', 30, 2);
      earlier.record(t, 'failed', 30, 2);
    }
    expect(await recorder.flush()).toBe(3);
    expect(await earlier.flush()).toBe(3);
    const slots = types.map((t) => {
      const keys = cluster.nodes.flatMap((n) => cluster.keysOn(n, `${bullpen.keys.root}:{history:${t}}:*`));
      expect(keys, t).toHaveLength(2);
      return [...new Set(keys.map((k) => cluster.keySlot(k)))];
    });
    for (const s of slots) expect(s).toHaveLength(1);
    expect(new Set(slots.flat()).size).toBe(3);
    for (const [i, t] of types.entries()) {
      const h = await readQueueHistory(bullpen, t, '24h', now);
      expect(h.totals, t).toEqual({ completed: i + 1, failed: 1 });
    }
  }, 60_000);
});
