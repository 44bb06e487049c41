import { randomBytes } from 'node:crypto';
import { SignInService } from '@/dashboard/auth/sign-in';
import { JobPage } from './pages/job-page';
import { LiveStream } from './pages/live-stream';
import { QueuePage } from './pages/queue-page';
import { SignInPage } from './pages/sign-in-page';
import { expect, test } from './fixtures';

/**
 * Issue 24, items 1 and 2: each tab's live views come pushed over one Server-Sent Events
 * stream (components/live/live-stream.tsx, dashboard/live/live-hub.ts); a tab whose
 * stream cannot open polls and says so; a role change closes the user's streams within
 * 1 s. Through nginx, and a stream broken mid-way: two-dashboards.spec.ts.
 */

const ITEMS = 30;

test("a queue's counts and a running job's progress change in an open tab without a poll", async ({ page, signIn, bullpen }) => {
  await signIn('operator');
  const queue = new QueuePage(page, 'embedding-batch');
  await queue.goto('delayed');
  const live = new LiveStream(page);
  await expect(live.status).toHaveAttribute('data-stream', 'open');
  live.recordPolls();

  // A delayed job: the delayed tab's count goes up by one, pushed.
  const before = Number(await queue.stateTab('delayed').locator('.count').textContent());
  const namespace = `e2e-stream-${randomBytes(3).toString('hex')}`;
  const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `doc-${i}`, text: `document ${i} of the e2e stream run` }));
  const delayed = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items: items.slice(0, 1) }, { delayMs: 600_000 });
  try {
    await expect(queue.stateTab('delayed').locator('.count')).toHaveText(String(before + 1));
    expect(live.polled(), 'no live route was polled while the stream was open').toEqual([]);

    // A running job's page: its progress bar moves, pushed.
    const { jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace, items, batchSize: 1 });
    await page.goto(`/queues/embedding-batch/jobs/${encodeURIComponent(jobId)}`);
    const job = new JobPage(page);
    await expect(live.status).toHaveAttribute('data-stream', 'open');
    live.recordPolls();
    await expect(job.state).toHaveAttribute('data-status', 'active');
    await job.expectIntermediateProgress();
    expect(live.polled(), 'no live route was polled while the stream was open').toEqual([]);
  } finally {
    await (await bullpen.queues.get('embedding-batch').getJob(delayed.jobId))?.remove();
  }
});

test('a tab whose stream is refused says so and polls instead', async ({ page, signIn }) => {
  await page.route('**/api/live/stream?**', (route) =>
    route.fulfill({
      status: 429,
      contentType: 'application/json',
      body: JSON.stringify({ code: 'RATE_LIMITED', message: 'At most 16 live streams per user; this tab polls instead' }),
    }),
  );
  await signIn('viewer');
  const live = new LiveStream(page);
  live.recordPolls();
  await expect(live.notice).toContainText('the live stream was refused (HTTP 429: At most 16 live streams per user');
  await expect(live.status).toHaveAttribute('data-stream', 'polling');
  await expect.poll(() => live.polled().filter((p) => p === '/api/live/overview').length, { timeout: 10_000 }).toBeGreaterThan(0);
});

test("a role change closes the user's open streams within 1 s", async ({ page, bullpen }) => {
  const auth = new SignInService(bullpen.redis, bullpen.keys);
  const username = `e2e-stream-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  await auth.users.create({ username, password, role: 'viewer' });
  try {
    const form = new SignInPage(page);
    await form.goto();
    await form.submitCredentials(username, password);
    await expect(page).toHaveURL((u) => u.pathname === '/');
    const live = new LiveStream(page);
    await expect(live.status).toHaveAttribute('data-stream', 'open');

    // The stream's `closed` event sends the tab to sign in; its request is the moment the tab knew.
    const toSignIn = page.waitForRequest((r) => new URL(r.url()).pathname === '/sign-in', { timeout: 10_000 });
    await auth.users.setRole(username, 'operator');
    const changedAt = Date.now();
    await toSignIn;
    expect(Date.now() - changedAt, 'the stream closed within 1 s of the role change').toBeLessThan(1_000);
  } finally {
    await auth.users.remove(username).catch(() => undefined);
  }
});
