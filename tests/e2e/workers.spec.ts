import { expect, saveScreenshot, test } from './fixtures';

test('the workers view shows the worker process and a running job with its progress, live', async ({ page, signIn, bullpen }) => {
  // 40 one-text batches against the run's slow embeddings service: about 16 s of running.
  const items = Array.from({ length: 40 }, (_, i) => ({ id: `w-${i}`, text: `workers view item ${i}` }));
  const { jobId } = await bullpen.dispatcher.dispatch(
    'embedding-batch',
    { namespace: `e2e-workers-${Date.now()}`, items, batchSize: 1 },
    { tenant: { orgId: 'e2e-workers' } },
  );
  await expect.poll(() => bullpen.queues.get('embedding-batch').getJobState(jobId), { timeout: 30_000 }).toBe('active');

  await signIn('viewer', '/workers');
  const process = page.getByTestId('workers-process');
  await expect(process).toHaveCount(1);
  await expect(process.first()).toContainText('embedding-batch (4)');
  await expect(process.first()).not.toHaveAttribute('data-stale', 'true');

  // The heartbeat lists the job within 5 s; the page polls every 3 s.
  const row = page.locator(`[data-testid="workers-running-row"][data-job-id="${jobId}"]`);
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText('e2e-workers');
  const bar = row.getByTestId('workers-running-progress');
  await expect.poll(async () => Number(await bar.getAttribute('data-value')), { timeout: 20_000 }).toBeGreaterThan(0);
  await saveScreenshot(page, 'workers-running');
  // The link opens the job.
  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/queues/embedding-batch/jobs/${jobId}$`));
  await expect.poll(() => bullpen.queues.get('embedding-batch').getJobState(jobId), { timeout: 60_000 }).toBe('completed');
});
