import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { DeadLettersPage } from './pages/dead-letters-page';
import { QueuePage } from './pages/queue-page';
import { cleanUpDeliveries, failWebhookDelivery, type FailedDelivery } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';
import { expect, test } from './fixtures';

/**
 * The "use the shortcuts to retry a failed job": `?` lists the shortcuts, `g q`
 * goes to the queues, `/` focuses the search field, and on a queue's failed tab `j`
 * walks to the failed job's row and `r` retries it after asking.
 */

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** axe on the page as it is now (an open dialog, a focused row): the rule ids and targets it finds. */
async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

let receiver: WebhookReceiver | undefined;
const failures: FailedDelivery[] = [];

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  await cleanUpDeliveries(bullpen, failures);
});

test('? lists the shortcuts, g q goes to the queues, / focuses the search, j and r retry a failed job', async ({
  page,
  signIn,
  bullpen,
}) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.keyboard-retry');
  failures.push(failed);
  receiver.answer = 200;

  await signIn('operator', '/');

  // `?`: a real dialog with a heading, listing the shortcuts; Escape closes it and the focus comes back.
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(async () => {
    await page.keyboard.press('?');
    await expect(help).toBeVisible({ timeout: 1_000 });
  }).toPass();
  await expect(help.getByTestId('shortcuts-list')).toContainText('Go to Dead letters');
  await expect(help.getByTestId('shortcuts-list')).toContainText('Retry the focused failed job');
  expect(await axeViolations(page), 'axe with the shortcuts dialog open').toEqual([]);
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await expect(page.locator('body')).toBeFocused();

  // `g` then `q`: the queues.
  await page.keyboard.press('g');
  await page.keyboard.press('q');
  await expect(page).toHaveURL((url) => url.pathname === '/queues');

  // `/` focuses "open job by id", without typing the slash; letters typed there stay text.
  const search = page.getByTestId('open-job-input');
  await expect(async () => {
    await page.keyboard.press('/');
    await expect(search).toBeFocused({ timeout: 1_000 });
  }).toPass();
  await expect(search).toHaveValue('');
  await page.keyboard.type('jgq');
  await expect(search).toHaveValue('jgq');
  await expect(page).toHaveURL((url) => url.pathname === '/queues');

  // The failed tab: `j` walks the rows to the failed job, highlighted.
  const queue = new QueuePage(page, 'webhook-dispatch');
  await queue.goto('failed');
  const row = queue.jobRow(failed.jobId);
  await expect(row).toBeVisible();
  await expect(async () => {
    await page.keyboard.press('j');
    await expect(row).toBeFocused({ timeout: 500 });
  }).toPass();
  await expect(row).toHaveCSS('outline-style', 'solid');
  expect(await axeViolations(page), 'axe with a row focused').toEqual([]);

  // `r` asks first: Cancel keeps the job failed and the focus on its row.
  await page.keyboard.press('r');
  const confirm = page.getByTestId('job-retry-shortcut-dialog');
  await expect(confirm).toBeVisible();
  await expect(confirm.getByRole('heading', { name: `Retry job ${failed.jobId}?` })).toBeVisible();
  expect(await axeViolations(page), 'axe with the retry confirmation open').toEqual([]);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toBeFocused();
  expect(await bullpen.queues.get('webhook-dispatch').getJobState(failed.jobId)).toBe('failed');

  // `r` again and confirm: the job is retried and the outcome says so, holding the focus.
  await page.keyboard.press('r');
  await page.getByTestId('job-retry-shortcut-confirm').click();
  const outcome = page.getByTestId('job-retry-outcome');
  await expect(outcome.getByTestId('retried-job-link')).toHaveAttribute('href', `/queues/webhook-dispatch/jobs/${failed.jobId}`);
  await expect(outcome).toBeFocused();
});

test('on the dead letters, j reaches a row and Enter opens it; a viewer has no r', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  const failed = await failWebhookDelivery(bullpen, receiver, 'e2e.keyboard-open');
  failures.push(failed);

  await signIn('viewer', '/dead-letters?type=webhook-dispatch');
  const dlq = new DeadLettersPage(page);
  const row = dlq.row(failed.entry.id);
  await expect(row).toBeVisible();

  // `/` focuses the tenant filter.
  await expect(async () => {
    await page.keyboard.press('/');
    await expect(page.getByTestId('dlq-filter-tenant')).toBeFocused({ timeout: 1_000 });
  }).toPass();
  await page.getByTestId('dlq-filter-tenant').blur();

  await expect(async () => {
    await page.keyboard.press('j');
    await expect(row).toBeFocused({ timeout: 500 });
  }).toPass();
  await page.keyboard.press('r');
  await expect(page.getByTestId('dlq-replay-shortcut-dialog')).toHaveCount(0);
  await expect(row).toHaveAttribute('data-status', 'pending');

  await page.keyboard.press('Enter');
  await expect(page).toHaveURL((url) => url.pathname === `/dead-letters/${failed.entry.id}`);
});
