import type { Bullpen } from '@/lib/bullpen';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { QueuePage } from './pages/queue-page';
import { SchedulesPage } from './pages/schedules-page';
import { failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { captureServerAction, postServerAction } from './support/server-action';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * A viewer reads every page but has no mutating control, and the actions behind those
 * controls refuse a viewer with a real 403 (hiding a button is not protection). Each
 * page is checked as an operator too, so "no control found" cannot pass because a
 * selector is wrong.
 */

const QUEUE = 'webhook-dispatch';
let receiver: WebhookReceiver;
let failed: FailedDelivery;

test.beforeAll(async ({ bullpen }) => {
  // A failed job and its dead letter, so the job and dead-letter pages have something to act on.
  receiver = await WebhookReceiver.start(400);
  failed = await failWebhookDelivery(bullpen, receiver, 'e2e.viewer');
});

test.afterAll(async ({ bullpen }) => {
  await receiver?.close();
  if (failed) await cleanUp(bullpen, failed);
});

test('a viewer sees no mutating control on the queue, job, dead-letter and schedule pages', async ({ page, signIn, contextAs }) => {
  const { page: op } = await contextAs('operator', `/queues/${QUEUE}?state=failed`);
  await signIn('viewer', `/queues/${QUEUE}?state=failed`);

  // Queue page: pause, promote all, retry all, retry one, select.
  const opQueue = new QueuePage(op, QUEUE);
  const queue = new QueuePage(page, QUEUE);
  await expect(opQueue.retryJobButton(failed.jobId)).toBeVisible();
  await expect(opQueue.pauseButton).toBeVisible();
  await expect(queue.jobRow(failed.jobId)).toBeVisible();
  await expect(queue.mutatingControls()).toHaveCount(0);
  await saveScreenshot(page, 'viewer-queue');

  // Job page: retry, promote, duplicate, remove.
  const opJob = new JobPage(op);
  const job = new JobPage(page);
  await opJob.goto(QUEUE, failed.jobId);
  await expect(opJob.retryButton).toBeVisible();
  await job.goto(QUEUE, failed.jobId);
  await expect(job.state).toHaveAttribute('data-status', 'failed');
  await expect(job.mutatingControls()).toHaveCount(0);
  await saveScreenshot(page, 'viewer-job');

  // Dead letters, list and entry: replay, discard, select, replay all, purge, edit payload.
  const opDlq = new DeadLettersPage(op);
  const dlq = new DeadLettersPage(page);
  await opDlq.goto(`type=${QUEUE}`);
  await expect(opDlq.replayButton(failed.entry.id)).toBeVisible();
  await dlq.goto(`type=${QUEUE}`);
  await expect(dlq.row(failed.entry.id)).toHaveAttribute('data-status', 'pending');
  await expect(dlq.mutatingControls()).toHaveCount(0);
  await saveScreenshot(page, 'viewer-dead-letters');
  await opDlq.gotoEntry(failed.entry.id);
  await expect(opDlq.detailReplayButton).toBeVisible();
  await dlq.gotoEntry(failed.entry.id);
  await expect(dlq.detailStatus).toHaveAttribute('data-status', 'pending');
  await expect(dlq.mutatingControls()).toHaveCount(0);

  // Schedules: edit, pause/resume, trigger, reset.
  const opSchedules = new SchedulesPage(op);
  const schedules = new SchedulesPage(page);
  await opSchedules.goto();
  await expect(opSchedules.card('session-cleanup').editButton).toBeVisible();
  await schedules.goto();
  await expect(schedules.card('session-cleanup').pattern).toHaveText('0 */15 * * * *');
  await expect(schedules.mutatingControls()).toHaveCount(0);
  await saveScreenshot(page, 'viewer-schedules');
});

test('a mutating action called directly answers 403 to a viewer and 401 without a session', async ({
  contextAs,
  playwright,
  bullpen,
  e2e,
}) => {
  const { page: op } = await contextAs('operator', `/queues/${QUEUE}`);
  const { context: viewer } = await contextAs('viewer', `/queues/${QUEUE}`);
  const anonymous = await playwright.request.newContext({ baseURL: e2e.baseURL });
  const queue = bullpen.queues.get(QUEUE);

  try {
    // The operator's "Pause queue" click, captured before it leaves the browser.
    const pause = await captureServerAction(op, () => new QueuePage(op, QUEUE).pauseButton.click());
    expect(JSON.parse(pause.body)).toEqual([{ queue: QUEUE }]);

    const asViewer = await postServerAction(viewer.request, e2e.baseURL, pause);
    expect(asViewer.status()).toBe(403);
    const asNobody = await postServerAction(anonymous, e2e.baseURL, pause);
    expect(asNobody.status()).toBe(401);
    expect(await queue.isPaused()).toBe(false);

    // The same request with the operator's cookies does pause the queue: the refusals above were about the role.
    const asOperator = await postServerAction(op.context().request, e2e.baseURL, pause);
    expect(asOperator.status()).toBe(200);
    await expect.poll(() => queue.isPaused()).toBe(true);
    await queue.resume();

    // Replaying a dead letter: refused to a viewer, the entry stays pending.
    const dlq = new DeadLettersPage(op);
    await dlq.goto(`type=${QUEUE}`);
    const replay = await captureServerAction(op, () => dlq.replayButton(failed.entry.id).click());
    expect((await postServerAction(viewer.request, e2e.baseURL, replay)).status()).toBe(403);
    expect((await postServerAction(anonymous, e2e.baseURL, replay)).status()).toBe(401);
    expect((await bullpen.dlq.get(failed.entry.id))?.status).toBe('pending');

    // JSON endpoints: 401 without a session; the operator-only preview is 403 to a viewer.
    for (const url of [
      '/api/live/overview',
      `/api/live/queues/${QUEUE}`,
      '/api/live/dead-letters',
      '/api/live/schedules',
      '/api/live/health',
      '/api/live/workers',
    ]) {
      expect((await anonymous.get(url)).status(), url).toBe(401);
      expect((await viewer.request.get(url)).status(), url).toBe(200);
    }
    expect((await viewer.request.get('/api/live/schedules/preview?pattern=0%200%203%20*%20*%20*&tz=UTC')).status()).toBe(403);
  } finally {
    await anonymous.dispose();
    if (await queue.isPaused()) await queue.resume();
  }
});

async function cleanUp(bullpen: Bullpen, f: FailedDelivery): Promise<void> {
  const entry = await bullpen.dlq.get(f.entry.id);
  if (entry?.status === 'pending') await bullpen.dlq.discard(entry.id, 'e2e-cleanup');
  await bullpen.webhooks.delete(f.webhookId);
}
