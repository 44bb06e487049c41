import { JobPage } from './pages/job-page';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

let receiver: WebhookReceiver | undefined;
let webhookId: string | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  if (webhookId) await bullpen.webhooks.delete(webhookId);
  receiver = webhookId = undefined;
});

test("an operator edits a delayed job's data and it runs with the new data", async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(200);
  webhookId = (await bullpen.webhooks.create({ url: receiver.url, description: 'e2e edit data' })).id;
  // A delivery with a wrong invoice id, due in ten minutes.
  const { jobId } = await bullpen.dispatcher.dispatch(
    'webhook-dispatch',
    { webhookId, event: 'e2e.edit-data', payload: { invoiceId: 41 } },
    { delayMs: 10 * 60_000 },
  );

  await signIn('operator', `/queues/webhook-dispatch/jobs/${jobId}`);
  const job = new JobPage(page);
  await expect(job.state).toHaveAttribute('data-status', 'delayed');
  await job.editDataButton.click();
  const text = await job.editDataEditor.inputValue();
  // A locked field (the webhook it goes to) is refused as the operator types.
  await job.editDataEditor.fill(text.replace(webhookId, 'wh_elsewhere'));
  await expect(job.editDataCheck).toHaveAttribute('data-ok', 'false');
  await expect(job.editDataCheck).toContainText('webhookId');
  await job.editDataEditor.fill(text.replace('"invoiceId": 41', '"invoiceId": 42'));
  await expect(job.editDataCheck).toHaveAttribute('data-ok', 'true');
  await job.editDataSubmit.click();
  await expect(job.editDataResult).toHaveAttribute('data-ok', 'true');
  await expect(job.editDataResult).toContainText('payload.invoiceId');
  await expect(job.data).toContainText('42');
  await saveScreenshot(page, 'job-edit-data');
  const stored = await bullpen.queues.get('webhook-dispatch').getJob(jobId);
  expect(stored?.data.payload).toEqual({ webhookId, event: 'e2e.edit-data', payload: { invoiceId: 42 } });

  // Run it now: the receiver gets the edited delivery, once, and never the old one.
  await job.promoteButton.click();
  await expect(job.state).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect.poll(() => receiver!.received.length, { timeout: 15_000 }).toBe(1);
  expect(JSON.parse(receiver.received[0].body)).toMatchObject({ payload: { invoiceId: 42 } });

  // The record: who changed what, before and after.
  const { entries } = await bullpen.audit.page({ limit: 50 });
  const entry = entries.find((e) => e.action === 'job.edit-data' && e.target?.id === `webhook-dispatch/${jobId}`);
  expect(entry?.details).toMatchObject({ changes: [{ path: 'payload.invoiceId', before: 41, after: 42 }] });
});
