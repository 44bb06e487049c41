import { HealthPage } from './pages/health-page';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * How long a change takes to show: the health checker shares one evaluation per 2 s,
 * the page polls every 3 s, and BullMQ's worker count (CLIENT LIST) changes as soon as
 * the process's connections close. 30 s leaves room for a slow machine.
 */
const TURN_MS = 30_000;

test.afterEach(async ({ workerProcess }) => {
  await workerProcess.ensureRunning();
});

test('the health page turns unhealthy when the worker stops and healthy when it returns', async ({
  page,
  signIn,
  workerProcess,
  request,
}) => {
  await signIn('viewer', '/health');
  const health = new HealthPage(page);
  await expect(health.overall).toHaveAttribute('data-status', 'healthy', { timeout: TURN_MS });
  await expect(health.check('workers')).toHaveAttribute('data-status', 'healthy');
  await page.evaluate(() => Object.assign(window, { __e2eNoReload: true }));

  expect(await workerProcess.stop()).toEqual({ code: 0, signal: null });

  // No worker on any queue: the workers check, and so the overall status, go bad while the page is open.
  await expect(health.check('workers')).toHaveAttribute('data-status', 'unhealthy', { timeout: TURN_MS });
  await expect(health.overall).toHaveAttribute('data-status', /^(degraded|unhealthy)$/);
  await expect(health.check('redis')).toHaveAttribute('data-status', 'healthy');
  const bad = await health.overall.getAttribute('data-status');
  // The probe endpoint agrees: 503 when unhealthy, 200 when merely degraded.
  await expect.poll(async () => (await request.get('/api/health')).status(), { timeout: TURN_MS }).toBe(bad === 'unhealthy' ? 503 : 200);
  await saveScreenshot(page, 'health-worker-stopped');

  await workerProcess.start();
  await expect(health.check('workers')).toHaveAttribute('data-status', 'healthy', { timeout: TURN_MS });
  await expect(health.overall).toHaveAttribute('data-status', 'healthy', { timeout: TURN_MS });
  await expect.poll(async () => (await request.get('/api/health')).status(), { timeout: TURN_MS }).toBe(200);
  expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
  await saveScreenshot(page, 'health-worker-back');
});

test('the overview counts worker processes and Health counts queue workers, each named for what it counts', async ({ page, signIn }) => {
  await signIn('viewer', '/');
  const tile = page.getByTestId('tile-workers');
  await expect(tile).toContainText('Worker processes');
  await expect(tile).toContainText('each runs a queue worker per job type');
  // The e2e stack runs one worker process, which serves all 18 queues.
  await expect(tile.locator('.stat')).toHaveText('1');

  await page.goto('/health');
  const health = new HealthPage(page);
  await expect(health.check('workers')).toContainText('Queue workers');
  await expect(health.check('workers')).toContainText(/\d+ queue workers? connected/);
});
