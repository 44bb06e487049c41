import type { Bullpen } from '@/lib/bullpen';
import { JobPage } from './pages/job-page';
import { expect, saveScreenshot, test } from './fixtures';
import { removeWebhook } from './support/dead-letters';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * The job page's Attempts timeline, from the attempt record the worker writes into the job's
 * hash (docs/architecture.md#the-attempt-record): a delivery answered 503 twice and then 200
 * shows three attempts, and a dead letter links to its job's timeline.
 */
const QUEUE = 'webhook-dispatch';
const ORG = 'org-e2e-attempts';

let receiver: WebhookReceiver | undefined;
let webhookId: string | undefined;

test.afterEach(async ({ bullpen }) => {
  await receiver?.close();
  receiver = undefined;
  if (webhookId) await removeWebhook(bullpen, webhookId);
  webhookId = undefined;
});

async function hookTo(bullpen: Bullpen, r: WebhookReceiver): Promise<string> {
  const webhook = await bullpen.webhooks.create({ url: r.url, description: 'e2e attempts', orgId: ORG, events: ['e2e.attempts'] });
  webhookId = webhook.id;
  return webhook.id;
}

test('a delivery that failed twice and then succeeded shows its three attempts as a timeline', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start();
  const r = receiver;
  // 503 to the first two deliveries, 200 to the third: read as each request arrives.
  Object.defineProperty(r, 'answer', { get: () => (r.received.length < 2 ? 503 : 200) });
  const id = await hookTo(bullpen, r);
  const { jobId } = await bullpen.dispatcher.dispatch(
    QUEUE,
    { webhookId: id, event: 'e2e.attempts', payload: { n: 1 } },
    { tenant: { orgId: ORG } },
  );
  await expect.poll(() => r.received.map((x) => x.answered), { timeout: 30_000 }).toEqual([503, 503, 200]);

  await signIn('viewer');
  const job = new JobPage(page);
  await job.goto(QUEUE, jobId);
  await expect(job.state).toHaveAttribute('data-status', 'completed');
  // The page polls every 10 s once the job is done; the last entry is written within 100 ms of its end.
  await expect(job.attempts).toHaveCount(3, { timeout: 15_000 });
  await expect(job.attemptTimeline.getByRole('heading', { name: 'Attempts' })).toBeVisible();
  await expect(job.attempts.nth(0)).toHaveAttribute('data-attempt', '1');
  await expect(job.attempts.nth(1)).toHaveAttribute('data-attempt', '2');
  await expect(job.attempts.nth(2)).toHaveAttribute('data-attempt', '3');
  for (const n of [0, 1]) {
    const a = job.attempts.nth(n);
    await expect(a).toHaveAttribute('data-outcome', 'retried');
    await expect(a.getByTestId('job-attempt-class')).toHaveText('server');
    await expect(a.getByTestId('job-attempt-message')).toContainText('503');
    // Full jitter may draw 0: "at once" is then what BullMQ did.
    await expect(a.getByTestId('job-attempt-next')).toHaveText(/^Retried (after a backoff of \d[\d.]* (ms|s)|at once)\.$/);
  }
  const last = job.attempts.nth(2);
  await expect(last).toHaveAttribute('data-outcome', 'completed');
  await expect(last.getByTestId('job-attempt-class')).toHaveCount(0);
  await expect(last.getByTestId('job-attempt-next')).toHaveText('Completed.');
  // Each attempt says when it ran and on which worker process.
  for (let n = 0; n < 3; n++) {
    await expect(job.attempts.nth(n).locator('time')).toHaveCount(2);
    await expect(job.attempts.nth(n).locator('.mono').first()).toHaveText(/^bullpen:.+:\d+$/);
  }
  await saveScreenshot(page, 'job-attempt-timeline');
});

test('a dead letter links to its job’s attempts timeline', async ({ page, signIn, bullpen }) => {
  receiver = await WebhookReceiver.start(400);
  const r = receiver;
  const id = await hookTo(bullpen, r);
  const { jobId } = await bullpen.dispatcher.dispatch(
    QUEUE,
    { webhookId: id, event: 'e2e.attempts', payload: { n: 2 } },
    { tenant: { orgId: ORG } },
  );
  let letter = '';
  await expect
    .poll(
      async () => {
        const entries = (await bullpen.dlq.list({ type: QUEUE, status: 'pending' }, { limit: 200 })).entries;
        letter = entries.find((e) => e.originalJobId === jobId)?.id ?? '';
        return letter;
      },
      { timeout: 30_000 },
    )
    .not.toBe('');

  await signIn('viewer');
  await page.goto(`/dead-letters/${encodeURIComponent(letter)}`);
  await page.getByTestId('dlq-attempts-link').click();
  await expect(page).toHaveURL(new RegExp(`/queues/${QUEUE}/jobs/${jobId}#attempts$`));
  const job = new JobPage(page);
  await expect(job.attempts).toHaveCount(1, { timeout: 15_000 });
  await expect(job.attempts.first()).toHaveAttribute('data-outcome', 'failed');
  await expect(job.attempts.first().getByTestId('job-attempt-class')).toHaveText('client');
  await expect(job.attempts.first().getByTestId('job-attempt-next')).toHaveText('Failed for good: no attempt after this one.');
});
