import { DeadLettersPage } from './pages/dead-letters-page';
import { QueuePage } from './pages/queue-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('row actions confirm a discard, say what a replay or retry did with a link, and keep the focus in place', async ({
  page,
  signIn,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(400);
  for (const event of ['e2e.discard', 'e2e.replay-keys', 'e2e.retry-row'])
    failures.push(await failWebhookDelivery(bullpen, receiver, event));
  const [toDiscard, toReplay, toRetry] = failures;
  receiver.answer = 200;

  await signIn('operator', '/dead-letters?type=webhook-dispatch');
  const dlq = new DeadLettersPage(page);

  // Discard asks first; Cancel changes nothing.
  await dlq.discardButton(toDiscard.entry.id).click();
  const dialog = page.getByTestId(`dlq-discard-${toDiscard.entry.id}-dialog`);
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dlq.row(toDiscard.entry.id)).toHaveAttribute('data-status', 'pending');
  await dlq.discardButton(toDiscard.entry.id).click();
  await page.getByTestId(`dlq-discard-${toDiscard.entry.id}-confirm`).click();
  await expect(dlq.row(toDiscard.entry.id)).toHaveAttribute('data-status', 'discarded');

  // Replay from the keyboard: the result links the new job and the focus stays on the button.
  await dlq.replayButton(toReplay.entry.id).focus();
  await page.keyboard.press('Enter');
  const link = dlq.row(toReplay.entry.id).getByTestId('dlq-replayed-job-link');
  await expect(link).toHaveAttribute('href', `/queues/webhook-dispatch/jobs/replay-${toReplay.entry.id}-1`);
  await expect(dlq.replayButton(toReplay.entry.id)).toBeFocused();

  // Retry one failed job from its queue: the row leaves the list, the outcome says where it went and holds the focus.
  const queue = new QueuePage(page, 'webhook-dispatch');
  await queue.goto('failed');
  await queue.retryJobButton(toRetry.jobId).click();
  const outcome = page.getByTestId('job-retry-outcome');
  await expect(outcome.getByTestId('retried-job-link')).toHaveAttribute('href', `/queues/webhook-dispatch/jobs/${toRetry.jobId}`);
  await expect(outcome).toContainText('its dead letter is marked retried');
  await expect(outcome).toBeFocused();
});
