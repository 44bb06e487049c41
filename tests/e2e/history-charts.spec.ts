import { HOUR_MS, historyKey, hourOf } from '@/lib/metrics/history-layout';
import { HistoryRecorder } from '@/lib/metrics/history-recorder';
import { expect, saveScreenshot, test } from './fixtures';
import { HistoryPanel } from './pages/history-panel';

/** A queue no other spec runs jobs on, and no schedule: its charts show only what this spec puts there. */
const QUEUE = 'memory-cleanup';
const DAY_MS = 24 * HOUR_MS;

/** When the seeded jobs ran: three days ago, inside 7 d and 30 d, outside 1 h and 24 h. */
const seededAt = Date.now() - 3 * DAY_MS;

test.describe('history charts', () => {
  test.beforeAll(async ({ bullpen }) => {
    // Three days of history cannot be waited for: the worker's own recorder writes it, with
    // its clock set three days back. 37 jobs of 40 ms that waited 12 ms, 5 failures of 900 ms.
    await bullpen.ready();
    const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => seededAt });
    for (let i = 0; i < 37; i++) recorder.record(QUEUE, 'completed', 40, 12);
    for (let i = 0; i < 5; i++) recorder.record(QUEUE, 'failed', 900, 12);
    await recorder.flush();
  });

  test.afterAll(async ({ bullpen }) => {
    await bullpen.redis.del(historyKey(bullpen.keys, QUEUE, hourOf(seededAt)));
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
    // One bar per hour of the week, holding the seeded jobs.
    await expect(history.chart).toHaveAttribute('data-points', '168');
    await expect(history.chart).toHaveAttribute('data-completed', '37');
    await expect(history.chart).toHaveAttribute('data-failed', '5');
    await expect(history.caption).toContainText('42 jobs finished in the last 7 days: 37 completed, 5 failed');
    await expect(history.chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    // p50 among the 40 ms runs (bucket 39.8–50.1 ms), p99 among the 900 ms failures (794–1,000 ms).
    const p50 = Number(await history.percentile(QUEUE, 'duration', 'p50').getAttribute('data-ms'));
    expect(p50).toBeGreaterThan(39);
    expect(p50).toBeLessThanOrEqual(51);
    const p99 = Number(await history.percentile(QUEUE, 'duration', 'p99').getAttribute('data-ms'));
    expect(p99).toBeGreaterThan(794);
    expect(p99).toBeLessThanOrEqual(1_000);
    await expect(history.percentile(QUEUE, 'wait', 'p95')).toHaveText(/^1[0-3] ms$/);
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
