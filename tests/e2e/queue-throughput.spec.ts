import { QueuePage } from './pages/queue-page';
import { expect, saveScreenshot, test } from './fixtures';

/** A queue no other spec changes; its limits are removed after each test. */
const QUEUE = 'index-optimization';

test.afterEach(async ({ bullpen }) => {
  const queue = bullpen.queues.get(QUEUE);
  await queue.removeGlobalConcurrency();
  await queue.removeGlobalRateLimit();
});

test('an operator sets and removes a queue’s global concurrency and rate limit; each change is audited', async ({
  page,
  signIn,
  bullpen,
}) => {
  await signIn('operator', `/queues/${QUEUE}`);
  const q = new QueuePage(page, QUEUE);
  const queue = bullpen.queues.get(QUEUE);
  await expect(q.concurrencyValue).toContainText('No global limit');
  await expect(q.rateLimitValue).toContainText('No rate limit');

  // A value out of bounds is refused with the rule, and nothing is stored.
  await q.concurrencyInput.fill('0');
  await q.setConcurrencyButton.click();
  await expect(q.throughputResult).toHaveAttribute('data-code', 'VALIDATION');
  await expect(q.throughput).toContainText('At least 1 job at once');
  expect(await queue.getGlobalConcurrency()).toBeNull();

  await q.concurrencyInput.fill('3');
  await q.setConcurrencyButton.click();
  await expect(q.throughputResult).toHaveText('Global concurrency set to 3.');
  await expect(q.concurrencyValue).toHaveAttribute('data-value', '3');
  await expect(q.concurrencyValue).toContainText('At most 3 jobs at once across all workers');
  expect(await queue.getGlobalConcurrency()).toBe(3);

  await q.rateMaxInput.fill('20');
  await q.rateWindowInput.fill('1.5');
  await q.rateUnit.selectOption('s');
  await q.setRateLimitButton.click();
  await expect(q.throughputResult).toHaveText('Rate limit set to 20 jobs per 1,500 ms.');
  await expect(q.rateLimitValue).toHaveAttribute('data-max', '20');
  await expect(q.rateLimitValue).toHaveAttribute('data-duration-ms', '1500');
  expect(await queue.getGlobalRateLimit()).toEqual({ max: 20, duration: 1_500 });

  // A reload reads them back from Redis.
  await page.reload();
  await expect(q.concurrencyValue).toHaveAttribute('data-value', '3');
  await expect(q.rateLimitValue).toContainText('20 jobs per 1,500 ms');
  await saveScreenshot(page, 'queue-throughput');

  await q.removeConcurrencyButton.click();
  await expect(q.concurrencyValue).toContainText('No global limit');
  await q.removeRateLimitButton.click();
  await expect(q.rateLimitValue).toContainText('No rate limit');
  expect(await queue.getGlobalConcurrency()).toBeNull();
  expect(await queue.getGlobalRateLimit()).toBeNull();

  const { entries } = await bullpen.audit.page({ limit: 50 });
  const mine = entries.filter((e) => e.target?.id === QUEUE && e.action.startsWith('queue.')).map((e) => e.action);
  expect(mine.slice(0, 4)).toEqual([
    'queue.remove-rate-limit',
    'queue.remove-concurrency',
    'queue.set-rate-limit',
    'queue.set-concurrency',
  ]);
});

test('a viewer sees the limits and what they mean, but no form', async ({ page, signIn, bullpen }) => {
  await bullpen.queues.get(QUEUE).setGlobalConcurrency(2);
  await signIn('viewer', `/queues/${QUEUE}`);
  const q = new QueuePage(page, QUEUE);
  await expect(q.concurrencyValue).toHaveAttribute('data-value', '2');
  await expect(q.concurrencyValue).toContainText('At most 2 jobs at once across all workers');
  await expect(page.getByTestId('throughput-help')).toContainText('Global concurrency');
  await expect(q.concurrencyInput).toHaveCount(0);
  await expect(q.setRateLimitButton).toHaveCount(0);
  await expect(q.mutatingControls()).toHaveCount(0);
});
