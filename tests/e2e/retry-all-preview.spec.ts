import { QueuePage } from './pages/queue-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('the retry-all preview equals the result, and the failed tab marks what it will not retry', async ({ page, signIn, bullpen }) => {
  // Four webhook deliveries the receiver refuses (4xx: failed for good at once, each with its dead letter).
  receiver = await WebhookReceiver.start(400);
  for (const n of [1, 2, 3, 4]) failures.push(await failWebhookDelivery(bullpen, receiver, 'e2e.retry-all', { n }));
  const [replayed, discarded, chained, untouched] = failures;
  // #1 replayed to a receiver that accepts it; #2 discarded; #3 replayed while the receiver
  // still refuses, so its replay fails too and the record is pending again on the replay's job.
  receiver.answer = 200;
  await bullpen.dlq.replay(replayed.entry.id, { by: 'e2e' });
  await expect.poll(async () => bullpen.queues.get('webhook-dispatch').getJobState(`replay-${replayed.entry.id}-1`)).toBe('completed');
  receiver.answer = 400;
  await bullpen.dlq.discard(discarded.entry.id, 'e2e');
  await bullpen.dlq.replay(chained.entry.id, { by: 'e2e' });
  const chainedReplay = `replay-${chained.entry.id}-1`;
  await expect.poll(async () => (await bullpen.dlq.get(chained.entry.id))?.failures.length, { timeout: 30_000 }).toBe(2);

  await signIn('operator', '/queues/webhook-dispatch?state=failed&size=200');
  const queue = new QueuePage(page, 'webhook-dispatch');
  // Marked before anything is pressed, with no live Retry.
  await expect(queue.retryMark(replayed.jobId)).toHaveAttribute('data-why', 'replayed');
  await expect(queue.retryMark(replayed.jobId)).toContainText(`replayed as replay-${replayed.entry.id}-1`);
  await expect(queue.retryMark(discarded.jobId)).toHaveAttribute('data-why', 'discarded');
  await expect(queue.retryMark(chained.jobId)).toHaveAttribute('data-replayed-as', chainedReplay);
  for (const f of [replayed, discarded, chained]) await expect(queue.retryJobButton(f.jobId)).toHaveCount(0);
  // The chain's newest failed job and the untouched one can be retried.
  await expect(queue.retryJobButton(chainedReplay)).toBeVisible();
  await expect(queue.retryJobButton(untouched.jobId)).toBeVisible();
  await expect(queue.retryMark(untouched.jobId)).toHaveCount(0);

  await queue.retryAllButton.click();
  await expect(queue.retryAllPreview).toHaveAttribute('data-state', 'done');
  const willRetry = Number(await queue.retryAllPreview.getAttribute('data-retry'));
  const willSkip = Number(await queue.retryAllPreview.getAttribute('data-skip'));
  // At least this spec's two retryable jobs and three skipped ones (earlier specs may have left more).
  expect(willRetry).toBeGreaterThanOrEqual(2);
  expect(willSkip).toBeGreaterThanOrEqual(3);
  await expect(queue.retryAllConfirm).toHaveText(`Retry ${willRetry} ${willRetry === 1 ? 'job' : 'jobs'}`);
  await saveScreenshot(page, 'retry-all-preview');
  await queue.retryAllConfirm.click();

  await expect(queue.bulkProgress).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(queue.bulkProgress).toHaveAttribute('data-succeeded', String(willRetry));
  await expect(queue.bulkProgress).toHaveAttribute('data-skipped', String(willSkip));
  await expect(queue.bulkProgress).toHaveAttribute('data-failed', '0');
  await saveScreenshot(page, 'retry-all-result');
  // The marked jobs stayed failed: the chain's stale original did not run again.
  const jobs = bullpen.queues.get('webhook-dispatch');
  for (const f of [replayed, discarded, chained]) expect(await jobs.getJobState(f.jobId)).toBe('failed');
});
