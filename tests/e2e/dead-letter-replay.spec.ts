import type { Bullpen } from '@/lib/bullpen';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
let failed: FailedDelivery | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  if (failed) await cleanUp(bullpen, failed);
  receiver = failed = undefined;
});

test('replay a dead letter from the list and see the new job complete', async ({ page, signIn, bullpen }) => {
  // The receiver refuses the first delivery with a 400: no retry, straight to the dead letters.
  receiver = await WebhookReceiver.start(400);
  failed = await failWebhookDelivery(bullpen, receiver, 'e2e.replay');
  const { entry } = failed;
  expect(entry.error).toMatchObject({ errorClass: 'client', code: 'HTTP_400' });

  await signIn('operator', '/dead-letters?type=webhook-dispatch');
  const dlq = new DeadLettersPage(page);
  const row = dlq.row(entry.id);
  await expect(row).toHaveAttribute('data-status', 'pending');
  await expect(dlq.entryLink(entry.id)).toContainText('HTTP 400');

  // The receiver is fixed; the operator replays the entry.
  receiver.answer = 200;
  await dlq.replayButton(entry.id).click();
  await expect(row.getByTestId('action-result')).toHaveAttribute('data-ok', 'true');
  await expect(row.getByTestId('action-result')).toContainText('Replayed as');
  await expect(row).toHaveAttribute('data-status', 'replayed');
  await saveScreenshot(page, 'dead-letter-replayed');

  // The entry records the replay and links the job it enqueued.
  await dlq.entryLink(entry.id).click();
  await expect(page).toHaveURL(new RegExp(`/dead-letters/${entry.id}$`));
  await expect(dlq.detailStatus).toHaveAttribute('data-status', 'replayed');
  await expect(dlq.replayRows).toHaveCount(1);
  const newJobId = await dlq.replayRows.first().getAttribute('data-job-id');
  expect(newJobId).toBeTruthy();
  expect(newJobId).not.toBe(failed.jobId);
  await dlq.replayRows.first().getByTestId('dlq-replay-job-link').click();

  const job = new JobPage(page);
  await expect(page).toHaveURL(new RegExp(`/queues/webhook-dispatch/jobs/${newJobId}$`));
  await expect(job.state).toHaveAttribute('data-status', 'completed');
  await expect(job.phase).toHaveText('delivered');
  await expect(job.returnValue).toContainText('"statusCode": 200');
  await saveScreenshot(page, 'dead-letter-replay-job');

  // The receiver saw the refused delivery and then the replay's, which it accepted.
  expect(receiver.received.map((r) => r.answered)).toEqual([400, 200]);
  const stored = await bullpen.dlq.get(entry.id);
  expect(stored?.replays.map((r) => [r.by, r.newJobId])).toEqual([['e2e-operator', newJobId]]);
});

async function cleanUp(bullpen: Bullpen, f: FailedDelivery): Promise<void> {
  const entry = await bullpen.dlq.get(f.entry.id);
  // A pending entry would keep the health page degraded for the specs after this one.
  if (entry?.status === 'pending') await bullpen.dlq.discard(entry.id, 'e2e-cleanup');
  await bullpen.webhooks.delete(f.webhookId);
}
