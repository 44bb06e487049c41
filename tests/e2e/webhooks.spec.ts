import type { Bullpen } from '@/lib/bullpen';
import { WebhooksPage } from './pages/webhooks-page';
import { captureServerAction, postServerAction } from './support/server-action';
import { removeWebhook } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * Issue 20 item 2: a disabled webhook can be mended from the dashboard. After maxFailures
 * failed deliveries it is disabled and its dead letters cannot be replayed; the webhooks
 * page shows why and since when, the failures that count, and the deliveries with their
 * jobs and dead letters; an operator re-enables it (audited), and a replay of its pending
 * dead letters then succeeds. A viewer sees it all but the URL's secret, and cannot act.
 */

const QUEUE = 'webhook-dispatch';
const SECRET = 's3cr3t-query-token';

let receiver: WebhookReceiver | undefined;
let webhookId: string | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  if (webhookId) await removeWebhook(bullpen, webhookId);
  webhookId = undefined;
});

async function pendingOf(bullpen: Bullpen, id: string): Promise<string[]> {
  const page = await bullpen.dlq.list({ type: QUEUE, status: 'pending' }, { limit: 200 });
  return page.entries.filter((e) => (e.payload as { webhookId?: string }).webhookId === id).map((e) => e.id);
}

test('an operator re-enables a disabled webhook from its page, and a replay of its dead letters then succeeds', async ({
  page,
  signIn,
  contextAs,
  bullpen,
  e2e,
}) => {
  receiver = await WebhookReceiver.start(400);
  const webhook = await bullpen.webhooks.create({
    url: `${receiver.url}?token=${SECRET}`,
    maxFailures: 2,
    description: 'e2e mending',
    orgId: 'org-e2e-mend',
    events: ['e2e.mend', 'e2e.other'],
  });
  webhookId = webhook.id;
  // Two 400s: each fails at once (client error), is dead-lettered, and counts; the second disables the webhook.
  for (const n of [1, 2]) {
    await bullpen.dispatcher.dispatch(
      QUEUE,
      { webhookId: webhook.id, event: 'e2e.mend', payload: { n }, deliveryId: `e2e-mend-${n}` },
      { tenant: { orgId: 'org-e2e-mend' } },
    );
  }
  await expect.poll(async () => (await bullpen.webhooks.get(webhook.id)).enabled, { timeout: 30_000 }).toBe(false);
  // A third, sent while disabled: it fails at once without a request, and is dead-lettered too.
  await bullpen.dispatcher.dispatch(
    QUEUE,
    { webhookId: webhook.id, event: 'e2e.mend', payload: { n: 3 }, deliveryId: 'e2e-mend-3' },
    { tenant: { orgId: 'org-e2e-mend' } },
  );
  await expect.poll(() => pendingOf(bullpen, webhook.id), { timeout: 30_000 }).toHaveLength(3);
  expect(receiver.received).toHaveLength(2);

  await signIn('operator', '/webhooks');
  const hooks = new WebhooksPage(page);
  const row = hooks.row(webhook.id);
  await expect(row).toHaveAttribute('data-state', 'disabled');
  await expect(row.getByTestId('webhook-url')).toHaveText(`${receiver.url}?token=…`);
  await expect(row).not.toContainText(SECRET);
  await expect(row.getByTestId('webhook-owner')).toHaveText('org-e2e-mend');
  await expect(row.getByTestId('webhook-events')).toHaveText('e2e.mend, e2e.other');

  await hooks.goto(webhook.id);
  await expect(hooks.detail).toHaveAttribute('data-state', 'disabled');
  await expect(hooks.disabledReason).toHaveText('2 failed deliveries within 24 h (maxFailures 2)');
  await expect(hooks.detail.getByTestId('webhook-events')).toHaveAttribute('data-count', '2');
  await expect(hooks.failures).toHaveAttribute('data-count', '2');
  await expect(page.getByTestId('webhook-window-failure')).toHaveCount(2);
  await expect(hooks.deliveries).toHaveCount(2);
  // The two deliveries run at once (the type's concurrency is 20), so either may be recorded first.
  const first = hooks.deliveries.filter({ has: page.getByTestId('webhook-delivery-id').getByText('e2e-mend-1', { exact: true }) });
  await expect(first).toHaveCount(1);
  await expect(first).toHaveAttribute('data-status-code', '400');
  await expect(first.getByTestId('webhook-delivery-id')).toHaveText('e2e-mend-1');
  await expect(first.getByTestId('webhook-idempotency-key')).toHaveText(`webhook:${webhook.id}:e2e-mend-1`);
  await expect(first.getByTestId('webhook-delivery-dead-letter')).toBeVisible();
  await expect(first.getByTestId('webhook-delivery-job')).toHaveAttribute('href', new RegExp(`^/queues/${QUEUE}/jobs/`));
  await expect(hooks.pending).toHaveAttribute('data-count', '3');
  await expect(hooks.replayButton).toBeDisabled();
  await expect(page.locator('body')).not.toContainText(SECRET);
  await saveScreenshot(page, 'webhook-disabled');

  // The receiver is fixed; the operator re-enables the webhook, which forgets its failures.
  receiver.answer = 200;
  await hooks.reenable();
  await expect(hooks.result).toHaveAttribute('data-ok', 'true');
  await expect(hooks.detail).toHaveAttribute('data-state', 'active');
  await expect(hooks.failures).toHaveAttribute('data-count', '0');
  expect((await bullpen.webhooks.get(webhook.id)).enabled).toBe(true);
  const audit = (await bullpen.audit.page({ limit: 20 })).entries.find((e) => e.action === 'webhook.enable');
  expect(audit).toMatchObject({ actor: e2e.users.operator.username, target: { kind: 'webhook', id: webhook.id } });

  // A viewer sees the page without the secret, and no control; the action refuses a viewer outright.
  const viewer = await contextAs('viewer', `/webhooks/${encodeURIComponent(webhook.id)}`);
  const asViewer = new WebhooksPage(viewer.page);
  await expect(asViewer.detail).toBeVisible();
  await expect(asViewer.url).toHaveText(`${receiver.url}?token=…`);
  await expect(asViewer.actions).toHaveCount(0);
  const test = await captureServerAction(page, () => hooks.testButton.click());
  expect((await postServerAction(viewer.page.request, e2e.baseURL, test)).status()).toBe(403);

  // Replay its pending dead letters: all three are delivered, once each, and stay replayed.
  await hooks.replayButton.click();
  await expect(hooks.result).toHaveAttribute('data-replayed', '3');
  await expect
    .poll(
      () =>
        receiver!.received
          .filter((r) => r.answered === 200)
          .map((r) => r.deliveryId)
          .sort(),
      { timeout: 30_000 },
    )
    .toEqual(['e2e-mend-1', 'e2e-mend-2', 'e2e-mend-3']);
  await expect(page.locator('[data-testid="webhook-delivery"][data-ok="true"]')).toHaveCount(3);
  await expect.poll(() => pendingOf(bullpen, webhook.id)).toEqual([]);
  await expect(hooks.pending).toHaveAttribute('data-count', '0');

  // A test event is a real delivery through webhook-dispatch.
  await hooks.testButton.click();
  await expect(page.getByTestId('webhook-test-job')).toBeVisible();
  await expect.poll(() => receiver!.received.filter((r) => r.body.includes('"event":"bullpen.test"')).length, { timeout: 30_000 }).toBe(1);
  expect(receiver.received.filter((r) => r.answered === 200)).toHaveLength(4);
  await saveScreenshot(page, 'webhook-mended');
});
