import { deadLetterId } from '@/lib/dlq/entry';
import { HISTOGRAM_BUCKETS, percentile } from '@/lib/metrics/history-buckets';
import { FIELD, HOUR_MS, historyExpiresAt, historyKey, hourOf } from '@/lib/metrics/history-layout';
import type { Bullpen } from '@/lib/bullpen';
import { expect, saveScreenshot, test } from './fixtures';
import { HistoryPanel } from './pages/history-panel';

/** A queue no other spec runs jobs on, and no schedule: its charts show only what this spec puts there. */
const QUEUE = 'memory-cleanup';
const DAY_MS = 24 * HOUR_MS;

/** Where the seeded jobs are shown: three days ago, inside 7 d and 30 d, outside 1 h and 24 h. */
const seededHour = hourOf(Date.now() - 3 * DAY_MS);

/** The run-time histogram of the seeded hour, as the worker's recorder wrote it. */
let durations: number[] = [];

/** The run-time percentile `p` the page should show: the estimate from what the worker recorded. */
const shownMs = (p: number) => Math.round(percentile(durations, p)!.ms);

/**
 * Runs 37 jobs and 5 that fail validation (a plain producer's bad payload) through the e2e
 * worker, whose own recorder writes the hour they ran in; then moves that hour three days back
 * (every field is a count, so the hours added into one are the same tallies), and clears
 * BullMQ's per-minute counts of the queue, which would show them in the last hour again.
 */
async function seedThroughWorker(bullpen: Bullpen): Promise<void> {
  const queue = bullpen.queues.get(QUEUE);
  const from = hourOf(Date.now());
  const done = await bullpen.dispatcher.dispatchBulk(Array.from({ length: 37 }, () => ({ type: QUEUE, data: { olderThanDays: 90 } })));
  const bad = await Promise.all(Array.from({ length: 5 }, () => queue.add(QUEUE, { olderThanDays: 'ninety' })));
  await expect
    .poll(async () => (await Promise.all(done.map((d) => queue.getJobState(d.jobId)))).filter((s) => s === 'completed').length, {
      timeout: 60_000,
    })
    .toBe(37);
  await expect
    .poll(async () => (await Promise.all(bad.map((j) => queue.getJobState(j.id!)))).filter((s) => s === 'failed').length, {
      timeout: 60_000,
    })
    .toBe(5);
  const hours = Array.from({ length: hourOf(Date.now()) - from + 1 }, (_, i) => from + i);
  const tally = async (field: string) => {
    let n = 0;
    for (const h of hours) n += Number((await bullpen.redis.hget(historyKey(bullpen.keys, QUEUE, h), field)) ?? 0);
    return n;
  };
  // The worker flushes its tallies every 5 s.
  await expect.poll(async () => [await tally(FIELD.completed), await tally(FIELD.failed)], { timeout: 30_000 }).toEqual([37, 5]);
  const target = historyKey(bullpen.keys, QUEUE, seededHour);
  for (const h of hours) {
    const key = historyKey(bullpen.keys, QUEUE, h);
    for (const [field, n] of Object.entries(await bullpen.redis.hgetall(key))) await bullpen.redis.hincrby(target, field, Number(n));
    await bullpen.redis.del(key);
  }
  await bullpen.redis.pexpireat(target, historyExpiresAt(seededHour));
  for (const state of ['completed', 'failed'])
    await bullpen.redis.del(queue.toKey(`metrics:${state}`), queue.toKey(`metrics:${state}:data`));
  const stored = await bullpen.redis.hgetall(target);
  durations = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => Number(stored[`${FIELD.duration}${i}`] ?? 0));
  // Every attempt's run time is in it.
  expect(durations.reduce((a, n) => a + n, 0)).toBe(42);
  // Their dead letters are not what this spec shows.
  for (const job of bad) await bullpen.dlq.discard(deadLetterId(QUEUE, job.id!), 'e2e-cleanup');
}

test.describe('history charts', () => {
  test.beforeAll(async ({ bullpen }) => {
    // Three days of history cannot be waited for: the worker records the jobs now, and their
    // hour is moved back.
    await bullpen.ready();
    await seedThroughWorker(bullpen);
  });

  test.afterAll(async ({ bullpen }) => {
    await bullpen.redis.del(historyKey(bullpen.keys, QUEUE, seededHour));
    await bullpen.queues.get(QUEUE).clean(0, 1_000, 'completed');
    await bullpen.queues.get(QUEUE).clean(0, 1_000, 'failed');
  });

  test('a queue’s chart switches to 7 d through the URL and shows the week’s jobs and percentiles', async ({ page, signIn }) => {
    await signIn('viewer', `/queues/${QUEUE}`);
    const history = new HistoryPanel(page);
    await expect(history.chart).toHaveAttribute('data-range', '1h');
    await expect(history.chart).toHaveAttribute('data-points', '60');
    await expect(history.chart).toHaveAttribute('data-completed', '0');
    await expect(history.rangeLink('1h')).toHaveAttribute('aria-current', 'page');

    await history.rangeLink('7d').click();
    await expect(page).toHaveURL((url) => url.searchParams.get('range') === '7d' && url.hash === '#history');
    await expect(history.rangeLink('7d')).toHaveAttribute('aria-current', 'page');
    await expect(history.chart).toHaveAttribute('data-range', '7d');
    // One point per hour of the week, and the bars drawn: only the seeded hour has any, its
    // completed and its failed jobs stacked in one slot.
    await expect(history.chart).toHaveAttribute('data-points', '168');
    const bars = history.chart.locator('.recharts-bar-rectangle path');
    await expect(bars).toHaveCount(2);
    // The live refresh redraws the chart, and a bar replaced between the count and its read has no
    // box (null): read both again until they are drawn (Infinity until then), then they share one slot.
    await expect
      .poll(async () => {
        const [completedBar, failedBar] = await Promise.all([bars.nth(0).boundingBox(), bars.nth(1).boundingBox()]);
        return completedBar && failedBar ? Math.abs(completedBar.x - failedBar.x) : Number.POSITIVE_INFINITY;
      })
      .toBeLessThan(1);
    await expect(history.chart).toHaveAttribute('data-completed', '37');
    await expect(history.chart).toHaveAttribute('data-failed', '5');
    await expect(history.caption).toContainText('42 jobs finished in the last 7 days: 37 completed, 5 failed');
    await expect(history.chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    // The run-time percentiles the worker recorded (history-buckets' estimates of its histogram).
    await expect(history.percentile(QUEUE, 'duration', 'p50')).toHaveAttribute('data-ms', String(shownMs(50)));
    await expect(history.percentile(QUEUE, 'duration', 'p99')).toHaveAttribute('data-ms', String(shownMs(99)));
    await saveScreenshot(page, 'history-7d');

    // The URL alone, opened again, shows the same, and so does another tab of jobs.
    await page.reload();
    await expect(history.chart).toHaveAttribute('data-completed', '37');
    await page.getByTestId('queue-state-tab-completed').click();
    await expect(page).toHaveURL((url) => url.searchParams.get('state') === 'completed' && url.searchParams.get('range') === '7d');
    await expect(history.chart).toHaveAttribute('data-range', '7d');
    // 24 h does not reach three days back.
    await history.rangeLink('24h').click();
    await expect(page).toHaveURL((url) => url.searchParams.get('range') === '24h');
    await expect(history.chart).toHaveAttribute('data-points', '24');
    await expect(history.chart).toHaveAttribute('data-completed', '0');
    await expect(history.chart.locator('.recharts-bar-rectangle path')).toHaveCount(0);
  });

  test('the overview sums every queue over 30 d, and a bad range in the link is named and ignored', async ({ page, signIn }) => {
    await signIn('viewer', '/?range=fortnight');
    const history = new HistoryPanel(page);
    await expect(history.ignored).toContainText('range "fortnight" (one of 1h, 24h, 7d, 30d)');
    await expect(history.chart).toHaveAttribute('data-range', '1h');

    await history.rangeLink('30d').click();
    await expect(page).toHaveURL((url) => url.searchParams.get('range') === '30d');
    await expect(history.ignored).toHaveCount(0);
    await expect(history.chart).toHaveAttribute('data-points', '120');
    // Every queue's jobs of the month: at least the seeded ones, and this queue's row has exactly them.
    expect(Number(await history.chart.getAttribute('data-completed'))).toBeGreaterThanOrEqual(37);
    await expect(history.latencyRow(QUEUE).locator('td').first()).toHaveText('37');
    await history.latencyRow(QUEUE).getByRole('link', { name: QUEUE }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/queues/${QUEUE}` && url.searchParams.get('range') === '30d');
    await expect(history.chart).toHaveAttribute('data-completed', '37');
  });
});
