import AxeBuilder from '@axe-core/playwright';
import { DeadLettersPage } from './pages/dead-letters-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, saveScreenshot, test } from './fixtures';

/**
 * Issue 20, item 1: "Replay selected" reports what the replays did, not only that they
 * were enqueued: replays of a disabled webhook fail at once and are said to. Then their
 * list rows say first that the last replay failed, with that replay's error.
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('replay selected says which replays failed at once, and their rows say the last replay failed', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  for (const n of [1, 2]) failures.push(await failWebhookDelivery(bullpen, receiver, 'e2e.bulk-outcome', { n }));
  for (const f of failures) await bullpen.webhooks.disable(f.webhookId, 'e2e: switched off');
  receiver.answer = 200;

  await signIn('operator', '/dead-letters?type=webhook-dispatch&status=pending');
  const dlq = new DeadLettersPage(page);
  for (const f of failures) {
    await expect(dlq.row(f.entry.id)).toHaveAttribute('data-status', 'pending');
    await expect(dlq.row(f.entry.id).getByTestId('dlq-row-last-replay-failed')).toHaveCount(0);
    await page.getByTestId(`dlq-select-${f.entry.id}`).check();
  }
  await page.getByTestId('dlq-replay-selected').click();
  const result = page.locator('[data-testid="action-result"][data-failed-at-once]');
  await expect(result).toHaveAttribute('data-failed-at-once', '2', { timeout: 15_000 });
  await expect(result).toContainText('Enqueued 2 replays. 2 failed at once');
  await expect(result).toContainText('is disabled: e2e: switched off');
  await expect(result).not.toHaveClass(/\bok\b/);
  expect(receiver.received.filter((r) => r.answered === 200)).toHaveLength(0);

  // Pending again, each row says first that its last replay failed, beside that replay's error.
  for (const f of failures) {
    const row = dlq.row(f.entry.id);
    await expect(row).toHaveAttribute('data-status', 'pending', { timeout: 15_000 });
    await expect(row.getByTestId('dlq-row-last-replay-failed')).toContainText('Last replay failed');
    await expect(row.getByTestId('dlq-row-last-replay-failed')).toContainText('WEBHOOK_DISABLED');
    await expect(dlq.entryLink(f.entry.id)).toContainText('is disabled');
  }
  await saveScreenshot(page, 'dead-letter-rows-last-replay-failed');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const axe = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
    expect(
      axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      scheme,
    ).toEqual([]);
  }
});
