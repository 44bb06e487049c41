import { randomBytes } from 'node:crypto';
import { JobPage } from './pages/job-page';
import { OverviewPage } from './pages/overview-page';
import { QueuePage } from './pages/queue-page';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * embedding-batch reports progress after every batch. With batches of one text and the
 * run's embeddings service taking 400 ms per call (support/slow-embeddings-server.ts),
 * 40 items take about 16 s: long enough to watch the bar move on the live job page,
 * which polls every 3 s.
 */
const ITEMS = 40;

test('browse the queues, open a running job and watch its progress bar move without a reload', async ({ page, signIn, bullpen }) => {
  const shell = await signIn('operator');
  const overview = new OverviewPage(page);
  await expect(overview.queueRow('embedding-batch')).toBeVisible();

  const namespace = `e2e-progress-${randomBytes(3).toString('hex')}`;
  const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `doc-${i}`, text: `document ${i} of the e2e progress run` }));
  const { jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items, batchSize: 1 });

  // Overview → Queues → embedding-batch → its active jobs → the job.
  await shell.nav('queues').click();
  await expect(page).toHaveURL(/\/queues$/);
  await overview.queueLink('embedding-batch').click();
  const queue = new QueuePage(page, 'embedding-batch');
  await expect(page).toHaveURL(/\/queues\/embedding-batch/);
  await queue.stateTab('active').click();
  // The active tab refreshes itself; the job shows up once the worker has picked it up.
  await expect(queue.jobRow(jobId)).toBeVisible();
  await queue.jobLink(jobId).click();

  const job = new JobPage(page);
  await expect(page).toHaveURL(new RegExp(`/queues/embedding-batch/jobs/${jobId}$`));
  await expect(job.state).toHaveAttribute('data-status', 'active');
  await expect(job.phase).toHaveText('embedding');
  // A marker on window survives live updates but not a reload or a navigation.
  await page.evaluate(() => Object.assign(window, { __e2eNoReload: true }));

  // Collect the values the bar takes while the page refreshes itself.
  const seen: number[] = [await job.progressValue()];
  await expect
    .poll(
      async () => {
        const v = await job.progressValue();
        if (v !== seen[seen.length - 1]) seen.push(v);
        return seen.filter((x) => x > 0 && x < 100).length;
      },
      { message: 'the bar should show at least two intermediate values', timeout: 30_000, intervals: [250] },
    )
    .toBeGreaterThanOrEqual(2);
  await saveScreenshot(page, 'job-progress');

  await expect(job.state).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(job.progress).toHaveAttribute('data-value', '100');
  await expect(job.phase).toHaveText('complete');
  seen.push(await job.progressValue());
  // Never backwards, and it did move.
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  expect(new Set(seen).size).toBeGreaterThanOrEqual(3);
  expect(await page.evaluate(() => (window as unknown as { __e2eNoReload?: boolean }).__e2eNoReload)).toBe(true);
  // The page reported what the worker did: every item embedded.
  await expect(job.returnValue).toContainText(`"embedded": ${ITEMS}`);
});
