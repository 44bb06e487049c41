import { FlowProducer, Queue } from 'bullmq';
import IORedis from 'ioredis';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { QueuePage } from './pages/queue-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { REJECTED_TEXT } from './support/slow-embeddings-server';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('Duplicate has an edit step checked like edit-and-replay, and the copy carries the edit', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.dup-original');
  failures.push(failed);
  receiver.answer = 200;

  await signIn('operator', `/queues/webhook-dispatch/jobs/${failed.jobId}`);
  await page.getByTestId('job-duplicate').click();
  const editor = page.getByTestId('job-duplicate-editor');
  const check = page.getByTestId('job-duplicate-check');
  const submit = page.getByTestId('job-duplicate-submit');
  await expect(editor).toBeVisible();
  await expect(check).toHaveAttribute('data-ok', 'true');
  await expect(submit).toHaveText('Duplicate as it is');

  const original = await editor.inputValue();
  await editor.fill(`${original.slice(0, -2)}`);
  await expect(check).toHaveAttribute('data-ok', 'false');
  await expect(submit).toHaveAttribute('aria-disabled', 'true');

  await editor.fill(original.replace(failed.webhookId, 'wh-someone-else'));
  await expect(check).toHaveAttribute('data-stage', 'locked');
  await expect(check).toContainText('webhookId');

  await editor.fill(original.replace('e2e.dup-original', 'e2e.dup-edited'));
  await expect(check).toHaveAttribute('data-ok', 'true');
  await expect(submit).toHaveText('Duplicate with this payload');
  await submit.click();
  const link = page.getByTestId('job-duplicated-link');
  await expect(page.getByTestId('job-duplicate-result')).toContainText('with the edited payload');
  const copyId = (await link.textContent())!.replace(/^job /, '');
  expect(copyId).not.toBe(failed.jobId);
  await expect.poll(() => receiver!.received.filter((r) => r.body.includes('e2e.dup-edited')).length, { timeout: 30_000 }).toBe(1);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/queues/webhook-dispatch/jobs/${copyId}$`));
  await expect(new JobPage(page).state).toHaveText('completed', { timeout: 30_000 });
});

test('the whole job row opens the job, and the keyboard skips straight to the results', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.row-link');
  failures.push(failed);

  await signIn('operator', '/queues/webhook-dispatch?state=failed');
  const queue = new QueuePage(page, 'webhook-dispatch');
  const row = queue.jobRow(failed.jobId);
  // A click anywhere on the row (here the attempts cell, far from the id) opens the job; the Retry button stays its own.
  // The mouse clicks in the viewport: bring the row into it first.
  await row.locator('td.num').scrollIntoViewIfNeeded();
  const cell = (await row.locator('td.num').boundingBox())!;
  await page.mouse.click(cell.x + cell.width / 2, cell.y + cell.height / 2);
  await expect(page).toHaveURL(new RegExp(`/queues/webhook-dispatch/jobs/${encodeURIComponent(failed.jobId)}$`));

  // Dead letters from the keyboard: two Tabs reach "Skip to results", a few more the first Replay.
  await new DeadLettersPage(page).goto('type=webhook-dispatch&status=pending');
  await expect(page.getByTestId('dlq-row').first()).toBeVisible();
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('skip-to-results')).toBeFocused();
  await page.keyboard.press('Enter');
  let presses = 0;
  while (presses < 12) {
    await page.keyboard.press('Tab');
    presses++;
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
    if (id.startsWith('dlq-replay-dlq-')) break;
  }
  expect(presses).toBeLessThanOrEqual(8);
});

test('a job that completed with failed batches says so in its row and on its page', async ({ page, signIn, bullpen }) => {
  const items = Array.from({ length: 40 }, (_, i) => ({ id: `e2e-partial-${i}`, text: `note ${i}` }));
  items[35].text = `note ${REJECTED_TEXT}`;
  const { jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace: 'e2e-partial', items }, { tenant: { orgId: 'e2e' } });
  await expect.poll(() => bullpen.queues.get('embedding-batch').getJobState(jobId), { timeout: 60_000 }).toBe('completed');

  await signIn('viewer', '/queues/embedding-batch?state=completed');
  const row = new QueuePage(page, 'embedding-batch').jobRow(jobId);
  await expect(row.getByTestId('job-row-partial')).toHaveText('partial');
  await expect(row.getByTestId('job-row-outcome')).toHaveText('32 of 40 items embedded, 1 batch failed (8 items)');
  await row.getByTestId(`job-link-${jobId}`).click();
  const outcome = page.getByTestId('job-outcome');
  await expect(outcome).toHaveAttribute('data-partial', 'true');
  await expect(outcome).toContainText('Completed, but part of the work failed: 32 of 40 items embedded, 1 batch failed (8 items).');
});

test("a flow's parent waits in its own tab, and its page shows the tree down to each child and back up", async ({
  page,
  signIn,
  bullpen,
  e2e,
}) => {
  const connection = new IORedis(e2e.env.REDIS_URL, { maxRetriesPerRequest: null });
  const flows = new FlowProducer({ connection });
  // Children delayed an hour: the parent stays waiting on them while the spec looks.
  const child = (orgId: string) => ({
    name: 'quota-check',
    queueName: 'quota-check',
    prefix: bullpen.keys.queuePrefix('quota-check'),
    data: { orgId },
    opts: { delay: 3_600_000 },
  });
  const tree = await flows.add({
    name: 'memory-consolidation',
    queueName: 'memory-consolidation',
    prefix: bullpen.keys.queuePrefix('memory-consolidation'),
    data: { orgId: 'e2e-flow' },
    children: [child('e2e-flow-1'), child('e2e-flow-2')],
  });
  const parentId = tree.job.id!;
  try {
    await signIn('viewer', '/queues/memory-consolidation?state=waiting-children');
    await expect(page.getByTestId('queue-state-tab-waiting-children')).toContainText('1');
    await new QueuePage(page, 'memory-consolidation').jobLink(parentId).click();

    const flow = page.getByTestId('job-flow');
    await expect(flow.getByTestId('job-flow-counts')).toContainText('2 children: 0 done, 2 not done yet');
    const kids = flow.getByTestId('job-flow-child');
    await expect(kids).toHaveCount(2);
    for (const k of await kids.all()) await expect(k).toHaveAttribute('data-state', 'delayed');
    await kids.first().getByTestId('job-flow-child-link').click();
    await expect(page).toHaveURL(/\/queues\/quota-check\/jobs\//);
    const parentLink = page.getByTestId('job-flow-parent-link');
    await expect(parentLink).toHaveText(`memory-consolidation / ${parentId}`);
    await parentLink.click();
    await expect(page).toHaveURL(new RegExp(`/queues/memory-consolidation/jobs/${parentId}$`));
  } finally {
    await bullpen.queues.get('memory-consolidation').remove(parentId, { removeChildren: true });
    await flows.close();
    connection.disconnect();
  }
});

test('a BullMQ queue the job table does not define shows as foreign, with its counts, jobs and data as they are', async ({
  page,
  signIn,
  e2e,
}) => {
  const connection = new IORedis(e2e.env.REDIS_URL, { maxRetriesPerRequest: null });
  // Another service's queue under the dashboard's own prefix (BULLPEN_QUEUE_PREFIXES defaults to it).
  const name = `e2e-foreign-${Date.now().toString(36)}`;
  const queue = new Queue(name, { connection, prefix: e2e.prefix });
  try {
    const job = await queue.add('send', { to: 'ops@example.com', attempt: 1 });
    await queue.add('send', { to: 'later@example.com' }, { delay: 3_600_000 });
    await signIn('operator', '/queues');
    const row = page.locator(`[data-testid="foreign-queue-row"][data-queue="${e2e.prefix}~${name}"]`);
    // Discovery is reused for 30 s: a queue made just now may take that long to appear.
    await expect(async () => {
      await page.reload();
      await expect(row).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 45_000 });
    await expect(row.locator('td[data-state="waiting"]')).toHaveText('1');
    await expect(row.locator('td[data-state="delayed"]')).toHaveText('1');

    await row.getByTestId(`foreign-queue-link-${name}`).click();
    await expect(page.getByTestId('queue-foreign')).toHaveText('foreign');
    await page.goto(`/queues/${encodeURIComponent(`${e2e.prefix}~${name}`)}?state=waiting`);
    await page.getByTestId(`job-link-${job.id}`).click();
    await expect(page.getByTestId('job-data')).toContainText('ops@example.com');
    await expect(page.getByTestId('job-dead-letter-link')).toHaveCount(0);

    // An operator adds a job as the queue's own producers would: a name and raw JSON, checked as typed.
    await page.goto(`/queues/${encodeURIComponent(`${e2e.prefix}~${name}`)}?state=waiting`);
    await page.getByTestId('add-raw-job-open').click();
    await page.getByTestId('add-raw-job-name').fill('send');
    await page.getByTestId('add-raw-job-data').fill('{"to": "new@example.com",');
    await expect(page.getByTestId('add-raw-job-data-errors')).toBeVisible();
    await expect(page.getByTestId('add-raw-job-submit')).toHaveAttribute('aria-disabled', 'true');
    await page.getByTestId('add-raw-job-data').fill('{"to": "new@example.com"}');
    await page.getByTestId('add-raw-job-submit').click();
    const added = page.getByTestId('added-raw-job-link');
    await expect(added).toBeVisible();
    const addedId = (await added.textContent())!.replace(/^job /, '');
    expect((await queue.getJob(addedId))?.data).toEqual({ to: 'new@example.com' });

    // A reference under a prefix that is not configured is a 404, whatever is in Redis.
    const other = new Queue(name, { connection, prefix: 'not-configured' });
    await other.add('send', {});
    const res = await page.goto(`/queues/${encodeURIComponent(`not-configured~${name}`)}`);
    expect(res?.status()).toBe(404);
    await other.obliterate({ force: true });
    await other.close();
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  }
});
