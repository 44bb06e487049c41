import path from 'node:path';
import type { BrowserContext } from '@playwright/test';
import { Outbox } from '@/examples/mailer/outbox';
import { JobPage } from './pages/job-page';
import { OverviewPage } from './pages/overview-page';
import { QueuePage } from './pages/queue-page';
import { SignInPage } from './pages/sign-in-page';
import { MailerStack } from './support/mailer-stack';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * Issue 23, item 2: one application root. The worker and the dashboard started with
 * BULLPEN_APP=mailer run the example application (examples/mailer/app.ts) and nothing of
 * the shipped one: an operator browses its queues, adds one of its jobs from the form and
 * sees it complete, sent once, in the mailer's own store.
 */
let mailer: MailerStack;
let context: BrowserContext | undefined;

test.beforeAll(async ({ e2e }) => {
  // A second worker and a second `next` server starting on a loaded two-core machine.
  test.setTimeout(180_000);
  mailer = await MailerStack.start(path.resolve(__dirname, '../..'), e2e);
});

test.afterAll(async () => {
  await context?.close();
  await mailer?.stop();
});

test('BULLPEN_APP=mailer: the dashboard shows the mailer’s queues only, and a send-email added from the form completes', async ({
  browser,
}) => {
  context = await browser.newContext({ baseURL: mailer.url });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto('/');
  await signIn.submitCredentials(mailer.operator.username, mailer.operator.password);
  await expect(page).toHaveURL((url) => url.pathname === '/');

  // The overview lists the mailer's two queues, and none of the shipped application's.
  const overview = new OverviewPage(page);
  await expect(overview.queueRows).toHaveCount(2);
  await expect(overview.queueRow('send-email')).toBeVisible();
  await expect(overview.queueRow('send-digest')).toBeVisible();
  await expect(overview.queueRow('webhook-dispatch')).toHaveCount(0);
  await saveScreenshot(page, 'mailer-overview');

  // Its queue page, reached from the overview, and the add-a-job form built from its schema.
  await overview.queueLink('send-email').click();
  await expect(page).toHaveURL(/\/queues\/send-email$/);
  const form = await new QueuePage(page, 'send-email').openAddJob();
  await expect(form.priority).toHaveValue('HIGH');
  await form.payload.fill(JSON.stringify({ to: 'not-an-address', subject: 'Hello' }));
  await expect(form.check).toHaveAttribute('data-stage', 'schema');
  await expect(form.check).toContainText('to');
  await form.payload.fill(JSON.stringify({ to: 'ada@mailer.example', subject: 'Hello from the dashboard' }));
  await expect(form.check).toHaveAttribute('data-ok', 'true');
  await form.submit.click();
  await expect(form.result).toContainText('Added job');
  const jobId = await form.addedJobId();

  // The mailer's worker runs it: its page follows it to completed, with the handler's log lines.
  const job = new JobPage(page);
  await job.goto('send-email', jobId);
  await expect(job.state).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(job.returnValue).toContainText('"sent": true');
  await saveScreenshot(page, 'mailer-job-completed');

  // ...and the email is in the mailer's outbox, once.
  const sent = await new Outbox(mailer.bullpen.redis, mailer.bullpen.keys).since(0);
  expect(sent.map((e) => [e.to, e.subject, e.jobId])).toEqual([['ada@mailer.example', 'Hello from the dashboard', jobId]]);
});
