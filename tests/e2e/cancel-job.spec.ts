import { randomBytes } from 'node:crypto';
import { cancelledBy } from '@/lib/errors/cancelled-error';
import { JobPage } from './pages/job-page';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * A 30 s job cancelled from its page: embedding-batch with batches of one text, the run's
 * embeddings service taking 400 ms a call (support/slow-embeddings-server.ts), 75 texts.
 * The worker process of the run stops it over the cancel relay (docs/dashboard.md, "Cancel
 * a running job"); the page says who did, then and after a reload. A viewer is offered no
 * Cancel.
 */
const ITEMS = 75;

test('cancel a 30 s job from its page: it ends within 2 s and the page says who cancelled it', async ({
  page,
  signIn,
  bullpen,
  e2e,
  contextAs,
}) => {
  await signIn('operator');
  const namespace = `e2e-cancel-${randomBytes(3).toString('hex')}`;
  const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `doc-${i}`, text: `document ${i} of the e2e cancel run` }));
  const { jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items, batchSize: 1 });
  const queue = bullpen.queues.get('embedding-batch');
  await expect.poll(() => queue.getJobState(jobId), { timeout: 20_000 }).toBe('active');

  const job = new JobPage(page);
  await job.goto('embedding-batch', jobId);
  await expect(job.state).toHaveAttribute('data-status', 'active');

  // A viewer watching the same job sees no Cancel.
  const viewer = await contextAs('viewer');
  await new JobPage(viewer.page).goto('embedding-batch', jobId);
  await expect(viewer.page.getByTestId('job-state')).toHaveAttribute('data-status', 'active');
  await expect(viewer.page.getByTestId('job-cancel')).toHaveCount(0);

  await job.cancelButton.click();
  const pressed = Date.now();
  await job.cancelConfirm.click();
  await expect(job.actionResult).toHaveAttribute('data-ok', 'true');
  await expect(job.actionResult).toContainText('Cancelled: its worker stopped it');
  await expect(job.state).toHaveAttribute('data-status', 'failed');
  await expect(job.cancelledBy).toHaveText(e2e.users.operator.username);

  // In Redis: it ended within 2 s of the press, after one attempt, by the operator, with work left undone.
  const ended = await queue.getJob(jobId);
  expect(ended!.finishedOn! - pressed).toBeLessThan(2_000);
  expect(ended!.attemptsMade).toBe(1);
  expect(cancelledBy(ended!)).toBe(e2e.users.operator.username);
  expect((ended!.progress as { percent: number }).percent).toBeLessThan(100);
  await saveScreenshot(page, 'job-cancelled');

  // Still said after a reload: it is kept with the job.
  await page.reload();
  await expect(job.final).toHaveAttribute('data-state', 'cancelled');
  await expect(job.cancelledBy).toHaveText(e2e.users.operator.username);
  await expect(job.cancelButton).toHaveCount(0);
  // And not retried meanwhile.
  expect(await queue.getJobState(jobId)).toBe('failed');
});
