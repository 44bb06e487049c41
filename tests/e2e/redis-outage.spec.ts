import type { Page } from '@playwright/test';
import { HealthPage } from './pages/health-page';
import { OutageBanner } from './pages/outage-banner';
import { QueuePage } from './pages/queue-page';
import { expect, test } from './fixtures';

/**
 * Issue 20 item 3: "with redis-server stopped (SIGSTOP, and kill), open tabs show the
 * banner within 5 s", the health page says the same, it clears by itself when Redis is
 * back, and an action pressed meanwhile answers in words, never a minified React error.
 * The run's own redis-server is hung and killed through the control endpoint; the
 * fixture puts it back for the specs that follow.
 */

const BANNER_WITHIN_MS = 5_000;
/** Back: the watch's next PING answers (about a second), or, after a kill, ioredis's reconnect backoff first. */
const CLEARS_WITHIN_MS = 20_000;
const QUEUE = 'session-cleanup';

/** Three open tabs of one operator: the overview, the health page and a queue page. */
async function openTabs(page: Page) {
  const context = page.context();
  const health = await context.newPage();
  const queue = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('queue-table')).toBeVisible();
  const healthPage = new HealthPage(health);
  await healthPage.goto();
  await expect(healthPage.check('redis')).toBeVisible();
  const queuePage = new QueuePage(queue, QUEUE);
  await queuePage.goto();
  await expect(queuePage.pauseButton).toBeVisible();
  const tabs = [page, health, queue];
  for (const tab of tabs) await expect(new OutageBanner(tab).banner).toHaveCount(0);
  return { tabs, healthPage, queuePage };
}

async function expectBannerEverywhere(tabs: Page[], startedAt: number): Promise<string> {
  await Promise.all(tabs.map((tab) => expect(new OutageBanner(tab).banner).toBeVisible({ timeout: BANNER_WITHIN_MS })));
  const took = Date.now() - startedAt;
  expect(took, 'every open tab shows the banner within 5 s').toBeLessThan(BANNER_WITHIN_MS);
  const text = (await new OutageBanner(tabs[0]).banner.textContent()) ?? '';
  expect(text).toMatch(/Redis unreachable since \d\d:\d\d:\d\d UTC/);
  return /since (\d\d:\d\d:\d\d)/.exec(text)![1];
}

test('a hung Redis (SIGSTOP) shows in every open tab within 5 s, on the health page too, and clears by itself', async ({
  page,
  signIn,
  redisProcess,
}) => {
  await signIn('operator');
  const { tabs, healthPage } = await openTabs(page);

  const stoppedAt = Date.now();
  await redisProcess.pause();
  try {
    const since = await expectBannerEverywhere(tabs, stoppedAt);
    // The health page and its Redis card say the same, and nothing there calls itself live.
    await expect(healthPage.check('redis')).toHaveAttribute('data-status', 'unhealthy');
    await expect(healthPage.page.getByTestId('health-check-redis-summary')).toHaveText(`Redis unreachable since ${since} UTC.`);
    await expect(healthPage.overall).toHaveAttribute('data-status', 'unhealthy');
    await expect(new OutageBanner(healthPage.page).liveStatus).toHaveAttribute('data-live', 'stale');
  } finally {
    await redisProcess.resume();
  }
  await Promise.all(tabs.map((tab) => expect(new OutageBanner(tab).banner).toHaveCount(0, { timeout: CLEARS_WITHIN_MS })));
  await expect(healthPage.check('redis')).toHaveAttribute('data-status', 'healthy', { timeout: CLEARS_WITHIN_MS });
});

test('a killed Redis shows in every open tab within 5 s; an action pressed meanwhile says why in words and is not applied', async ({
  page,
  signIn,
  redisProcess,
  bullpen,
}) => {
  await signIn('operator');
  const { tabs, healthPage, queuePage } = await openTabs(page);
  const queue = bullpen.queues.get(QUEUE);
  expect(await queue.isPaused()).toBe(false);

  const killedAt = Date.now();
  await redisProcess.kill();
  try {
    await expectBannerEverywhere(tabs, killedAt);
    await expect(healthPage.check('redis')).toHaveAttribute('data-status', 'unhealthy');
    await expect(healthPage.page.getByTestId('health-check-redis-summary')).toContainText('Redis unreachable since');

    await queuePage.pauseButton.click();
    const result = queuePage.page.getByTestId('action-result');
    await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 10_000 });
    await expect(result).toContainText('Redis unreachable since');
    await expect(result).not.toContainText('Minified');
  } finally {
    await redisProcess.start();
  }
  await Promise.all(tabs.map((tab) => expect(new OutageBanner(tab).banner).toHaveCount(0, { timeout: CLEARS_WITHIN_MS })));
  // This spec's own client fails fast too, and reconnects on ioredis's backoff (up to 2 s
  // a try), not when the dashboard's does; expect.poll fails at once on a thrown read.
  await bullpen.ready(CLEARS_WITHIN_MS);
  // Pressed while Redis was away, and never applied once it came back.
  await expect.poll(() => queue.isPaused(), { timeout: 5_000 }).toBe(false);
  await new Promise((r) => setTimeout(r, 3_000));
  expect(await queue.isPaused()).toBe(false);
});
