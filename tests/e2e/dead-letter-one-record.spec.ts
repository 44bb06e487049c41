import { deadLetterId, replayJobId } from '@/lib/dlq/entry';
import { DeadLettersPage } from './pages/dead-letters-page';
import { QueuePage } from './pages/queue-page';
import { failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
let failed: FailedDelivery | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  if (failed) {
    const entry = await bullpen.dlq.get(failed.entry.id);
    if (entry?.status === 'pending') await bullpen.dlq.discard(entry.id, 'e2e-cleanup');
    await bullpen.webhooks.delete(failed.webhookId);
  }
  receiver = failed = undefined;
});

test('an edited replay is not undone by "Retry all failed": one delivery, with the edit, and one record', async ({
  page,
  signIn,
  bullpen,
}) => {
  // 1. A webhook job fails for good (the receiver refuses it) and lands in the dead letters.
  receiver = await WebhookReceiver.start(400);
  failed = await failWebhookDelivery(bullpen, receiver, 'e2e.invoice', { invoiceId: 77 });
  const { entry } = failed;
  const recordsBefore = (await bullpen.dlq.counts()).total;

  // 2. The operator fixes the payload (77 → 78) and replays it to the now-accepting receiver.
  receiver.answer = 200;
  await signIn('operator', `/dead-letters/${entry.id}`);
  const dlq = new DeadLettersPage(page);
  await page.getByTestId('dlq-edit-payload').click();
  const editor = page.getByTestId('dlq-payload-editor');
  const original = await editor.inputValue();
  await editor.fill(original.replace('"invoiceId": 77', '"invoiceId": 78'));
  await expect(page.getByTestId('dlq-payload-check')).toHaveAttribute('data-ok', 'true');
  await page.getByTestId('dlq-replay-edited').click();
  await expect(dlq.detailStatus).toHaveAttribute('data-status', 'replayed');
  await expect.poll(() => receiver!.received.filter((r) => r.answered === 200).length, { timeout: 30_000 }).toBe(1);

  // 3. Then "Retry all failed" on the queue, where the original job still sits in the failed list.
  const queue = new QueuePage(page, 'webhook-dispatch');
  await queue.goto();
  // Opened without a tab in the URL, the page lands on the failed jobs, which need attention.
  await expect(page.getByTestId('queue-state-tab-failed')).toHaveAttribute('aria-current', 'page');
  // Its row says so before anyone presses anything: no Retry, a mark linking the replay's job.
  const row = queue.jobRow(failed.jobId);
  await expect(row.getByTestId('job-row-retry-mark')).toHaveAttribute('data-why', 'replayed');
  await expect(row.getByTestId('job-row-retry-mark')).toContainText(`replayed as replay-${entry.id}-1`);
  await expect(queue.retryJobButton(failed.jobId)).toHaveCount(0);
  await queue.retryAllButton.click();
  // The confirmation says, before anything runs, that this job will be skipped and why.
  const preview = page.getByTestId('retry-all-preview');
  await expect(preview).toHaveAttribute('data-state', 'done');
  await expect(preview).toContainText('already replayed from the dead letters');
  const willRetry = Number(await preview.getAttribute('data-retry'));
  if (willRetry === 0) {
    // Nothing else failed in this queue: there is nothing to confirm.
    await expect(page.getByTestId('retry-all-confirm')).toBeDisabled();
    await page.keyboard.press('Escape');
  } else {
    await page.getByTestId('retry-all-confirm').click();
    const progress = page.getByTestId('bulk-progress');
    await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    await expect(progress).toContainText('already replayed from the dead letters');
  }
  await saveScreenshot(page, 'retry-all-skips-replayed');
  expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('failed');
  // Its row shows how it ended, not the progress it last reported.
  await expect(row.getByTestId('status-pill')).toHaveAttribute('data-status', 'failed');
  await expect(row.getByTestId('job-row-progress')).toHaveCount(0);

  // The original's job page says how it ended, links its dead letter, and offers no retry, saying why.
  await page.goto(`/queues/webhook-dispatch/jobs/${failed.jobId}`);
  await expect(page.getByTestId('job-final')).toContainText('Failed for good');
  await expect(page.getByTestId('job-dead-letter-link')).toHaveAttribute('href', `/dead-letters/${entry.id}`);
  await expect(page.getByTestId('job-retry-refused')).toContainText('already replayed');
  await expect(page.getByTestId('job-retry')).toHaveCount(0);

  // 4. The receiver got exactly one delivery after the failure, and it carried the edited value,
  // counted once the replay's job has completed and no webhook job is left to run.
  const webhookQueue = bullpen.queues.get('webhook-dispatch');
  await expect.poll(() => webhookQueue.getJobState(replayJobId(entry.id, 1))).toBe('completed');
  await expect
    .poll(async () =>
      Object.values(await webhookQueue.getJobCounts('waiting', 'prioritized', 'active', 'delayed')).reduce((a, n) => a + n, 0),
    )
    .toBe(0);
  const accepted = receiver.received.filter((r) => r.answered === 200);
  expect(accepted).toHaveLength(1);
  expect(JSON.parse(accepted[0].body)).toMatchObject({ payload: { invoiceId: 78 } });
  expect(receiver.received.some((r) => r.body.includes('"invoiceId":77') && r.answered === 200)).toBe(false);

  // 5. The record shows one failure and one replay, which completed.
  await dlq.gotoEntry(entry.id);
  await expect(page.getByTestId('dlq-failure-row')).toHaveCount(1);
  await expect(dlq.replayRows).toHaveCount(1);
  await expect(dlq.replayRows.first().getByTestId('status-pill')).toHaveAttribute('data-status', 'completed');
  expect((await bullpen.dlq.get(entry.id))?.failures).toHaveLength(1);
  // One record for the chain: the job's own, none for its replay, and no record added since.
  expect(entry.id).toBe(deadLetterId('webhook-dispatch', failed.jobId));
  expect(await bullpen.dlq.get(deadLetterId('webhook-dispatch', replayJobId(entry.id, 1)))).toBeUndefined();
  expect((await bullpen.dlq.counts()).total).toBe(recordsBefore);
});
