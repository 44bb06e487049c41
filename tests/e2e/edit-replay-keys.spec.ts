import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { QueuePage } from './pages/queue-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * Issue 20, item 1: edit-and-replay of a webhook dispatched with a deliveryId (the example
 * in docs/webhooks.md) is a new delivery with ids of its own, and the dashboard reports a
 * replay as it turned out.
 */

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('edit-and-replay of a delivery with a deliveryId: one edited delivery, and nothing more after every Retry', async ({
  page,
  signIn,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(400);
  const deliveryId = `invoice.paid:${Date.now()}`;
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.keyed', { invoiceId: 77 }, { deliveryId });
  failures.push(failed);
  const { entry } = failed;

  // The receiver is fixed; the operator corrects the payload (77 → 78) and replays it.
  receiver.answer = 200;
  await signIn('operator', `/dead-letters/${entry.id}`);
  const dlq = new DeadLettersPage(page);
  await page.getByTestId('dlq-edit-payload').click();
  const editor = page.getByTestId('dlq-payload-editor');
  await editor.fill((await editor.inputValue()).replace('"invoiceId": 77', '"invoiceId": 78'));
  await expect(page.getByTestId('dlq-payload-check')).toHaveAttribute('data-ok', 'true');
  await page.getByTestId('dlq-replay-edited').click();
  const result = page.getByTestId('dlq-payload-form').getByTestId('action-result');
  // Reported once the replayed job completed, not when it was enqueued.
  await expect(result).toHaveAttribute('data-outcome', 'completed');
  await expect(result).toHaveAttribute('data-ok', 'true');
  await expect(result).toContainText('Replayed with the edited payload as');
  await saveScreenshot(page, 'edit-replay-delivery-id');

  const accepted = receiver.received.filter((r) => r.answered === 200);
  expect(accepted).toHaveLength(1);
  expect(accepted[0].deliveryId).toMatch(new RegExp(`^${deliveryId}:replay-${entry.id}-1$`));
  expect(accepted[0].replayOf).toBe(deliveryId);
  expect(JSON.parse(accepted[0].body)).toMatchObject({ id: accepted[0].deliveryId, payload: { invoiceId: 78 } });

  // "Retry all failed", where the original still sits in the failed list.
  const queue = new QueuePage(page, 'webhook-dispatch');
  await queue.goto('failed');
  await queue.retryAllButton.click();
  await expect(queue.retryAllPreview).toHaveAttribute('data-state', 'done');
  if (Number(await queue.retryAllPreview.getAttribute('data-retry')) === 0) {
    // Only the replayed original is failed here: the confirmation has nothing to confirm.
    await expect(queue.retryAllConfirm).toBeDisabled();
    await page.keyboard.press('Escape');
  } else {
    await queue.retryAllConfirm.click();
    await expect(queue.bulkProgress).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  }
  expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('failed');

  // The failed row's Retry, and the job page's: refused, or not offered at all for a replayed failure.
  await queue.goto('failed');
  const rowRetry = queue.retryJobButton(failed.jobId);
  if ((await rowRetry.count()) > 0) {
    await rowRetry.click();
    await expect(page.getByTestId('action-result')).toHaveAttribute('data-ok', 'false');
  }
  const job = new JobPage(page);
  await page.goto(`/queues/webhook-dispatch/jobs/${failed.jobId}`);
  await expect(page.getByTestId('job-final')).toContainText('Failed for good');
  if ((await job.retryButton.count()) > 0) {
    await job.retryButton.click();
    await expect(page.getByTestId('action-result')).toHaveAttribute('data-ok', 'false');
  }

  // Nothing more reached the receiver: the refused original, then the one edited delivery.
  await page.waitForTimeout(1_500);
  expect(receiver.received.map((r) => [r.answered, r.deliveryId])).toEqual([
    [400, deliveryId],
    [200, accepted[0].deliveryId],
  ]);
  expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('failed');
  await dlq.gotoEntry(entry.id);
  await expect(dlq.detailStatus).toHaveAttribute('data-status', 'replayed');
  await expect(page.getByTestId('dlq-last-replay-failed')).toHaveCount(0);
});

test('a replay refused at once (a disabled webhook) is reported as refused, and the dead letter says its last replay failed', async ({
  page,
  signIn,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.disabled');
  failures.push(failed);
  await bullpen.webhooks.disable(failed.webhookId, 'e2e: endpoint retired');

  await signIn('operator', `/dead-letters/${failed.entry.id}`);
  const dlq = new DeadLettersPage(page);
  await dlq.detailReplayButton.click();
  const result = page.getByTestId('dlq-detail-actions').getByTestId('action-result');
  await expect(result).toHaveAttribute('data-outcome', 'failed');
  await expect(result).toHaveAttribute('data-ok', 'false');
  await expect(result).toContainText('The replay failed at once');
  await expect(result).toContainText('WEBHOOK_DISABLED');
  await expect(result).toContainText('fix what the error names first');
  expect(receiver.received).toHaveLength(1);

  // Read again, the page says first that the last replay failed, with that replay's error.
  await page.reload();
  await expect(dlq.detailStatus).toHaveAttribute('data-status', 'pending');
  const banner = page.getByTestId('dlq-last-replay-failed');
  await expect(banner).toBeVisible();
  await expect(banner.getByTestId('dlq-last-replay-error')).toContainText('is disabled: e2e: endpoint retired');
  await expect(banner.getByTestId('dlq-last-replay-job')).toHaveText(`replay-${failed.entry.id}-1`);
  await saveScreenshot(page, 'dead-letter-last-replay-failed');
});
