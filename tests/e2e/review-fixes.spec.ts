import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { DeadLettersPage } from './pages/dead-letters-page';
import { OverviewPage } from './pages/overview-page';
import { QueuePage } from './pages/queue-page';
import { expect, test } from './fixtures';

/**
 * Issue 20 item 5, the small ones from the same review: the dead-letter list's error class
 * and message side by side (both themes, more than 34 characters of the message), a queue's
 * job list that holds still under the pointer, a foreign queue on the overview with its real
 * history and attempts, and the bulk replay's default limit following the live count.
 */

const LONG = 'The receiver answered 400 Bad Request: the field "payload.memoryId" must name an existing memory of this tenant';

function deadLetter(tenant: string, i: number): DeadLetterInput {
  const jobId = `e2e-review-${tenant}-${i}`;
  return {
    queue: 'webhook-dispatch',
    jobId,
    jobType: 'webhook-dispatch',
    jobData: {
      payload: { webhookId: 'wh_review', event: 'e2e.review', payload: { i } },
      requestId: `req-${jobId}`,
      dispatchedAt: Date.now(),
      tenant: { orgId: tenant },
    },
    error: { message: LONG, errorClass: 'client' },
    attempts: 1,
    failedAt: Date.now() - i,
    tenant: { orgId: tenant },
    source: 'runtime',
  };
}

async function discardAll(bullpen: Bullpen, tenant: string): Promise<void> {
  for (const e of (await bullpen.dlq.list({ tenant, status: 'pending' }, { limit: 200 })).entries)
    await bullpen.dlq.discard(e.id, 'e2e-cleanup');
}

test('the error class and the message sit side by side, the message past 34 characters, in light and dark', async ({
  page,
  signIn,
  bullpen,
}) => {
  const tenant = `org-review-${randomBytes(3).toString('hex')}`;
  const { id } = await bullpen.dlq.record(deadLetter(tenant, 1));
  try {
    await signIn('operator');
    const dlq = new DeadLettersPage(page);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await dlq.goto(`tenant=${tenant}`);
      const row = dlq.row(id);
      await expect(row).toBeVisible();
      const badge = row.locator('.dlq-error > a').first();
      const message = dlq.entryLink(id);
      const [b, m] = [await badge.boundingBox(), await message.boundingBox()];
      if (!b || !m) throw new Error('badge or message not laid out');
      const overlap = b.x < m.x + m.width && m.x < b.x + b.width && b.y < m.y + m.height && m.y < b.y + b.height;
      expect(overlap, `${scheme}: badge ${JSON.stringify(b)} and message ${JSON.stringify(m)} overlap`).toBe(false);
      // Wrapped over more than one line rather than cut at 34 characters.
      const lineHeight = await message.evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight) || 20);
      expect(m.height, `${scheme}: the message wraps`).toBeGreaterThan(lineHeight * 1.5);
    }
  } finally {
    await discardAll(bullpen, tenant);
  }
});

test('the bulk replay limit follows the live count until the operator types one', async ({ page, signIn, bullpen }) => {
  const tenant = `org-review-${randomBytes(3).toString('hex')}`;
  for (const i of [1, 2]) await bullpen.dlq.record(deadLetter(tenant, i));
  try {
    await signIn('operator');
    await new DeadLettersPage(page).goto(`tenant=${tenant}&status=pending`);
    const limit = page.getByTestId('dlq-replay-all-limit');
    await expect(page.getByTestId('dlq-replayable')).toHaveText('2');
    await expect(limit).toHaveValue('2');
    for (const i of [3, 4, 5]) await bullpen.dlq.record(deadLetter(tenant, i));
    await expect(page.getByTestId('dlq-replayable')).toHaveText('5');
    await expect(limit).toHaveValue('5');
    await limit.fill('3');
    await bullpen.dlq.record(deadLetter(tenant, 6));
    await expect(page.getByTestId('dlq-replayable')).toHaveText('6');
    await expect(limit).toHaveValue('3');
  } finally {
    await discardAll(bullpen, tenant);
  }
});

test("a queue's job list holds still under the pointer; new jobs wait behind Show them", async ({ page, signIn, bullpen }) => {
  const type = 'session-cleanup';
  const queue = bullpen.queues.get(type);
  const ids: string[] = [];
  const delayed = async () => {
    const { jobId } = await bullpen.dispatcher.dispatch(type, {}, { delayMs: 3_600_000 });
    ids.push(jobId);
  };
  try {
    for (let i = 0; i < 3; i++) await delayed();
    await signIn('operator');
    const q = new QueuePage(page, type);
    await q.goto('delayed');
    await expect(q.jobRows.first()).toBeVisible();
    const before = await q.jobRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-id')));
    await page.getByTestId('job-table').hover();
    await delayed();
    await expect(page.getByTestId('jobs-arrived')).toBeVisible({ timeout: 15_000 });
    expect(await q.jobRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-id')))).toEqual(before);
    await page.getByTestId('jobs-show-arrived').click();
    await expect(q.jobRow(ids[ids.length - 1])).toBeVisible();
  } finally {
    for (const id of ids) await queue.remove(id).catch(() => undefined);
  }
});

test('a foreign queue shows on the overview, and its history and attempts say what happened', async ({ page, signIn, e2e }) => {
  const name = `e2e-foreign-${randomBytes(3).toString('hex')}`;
  const prefix = `${e2e.prefix}:{${name}}`;
  // How the dashboard names a queue under Bullpen's own layout that the job table lacks (dashboard/queues/queue-ref.ts).
  const ref = `${prefix}~${name}`;
  const connection = new IORedis({ host: '127.0.0.1', port: e2e.redisPort, maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix });
  let done = 0;
  const worker = new Worker(name, async () => 'ok', { connection, prefix });
  worker.on('completed', () => done++);
  try {
    for (let i = 0; i < 5; i++) await queue.add('report', { i }, { attempts: 0 });
    await expect.poll(() => done, { timeout: 20_000 }).toBe(5);
    await signIn('operator');
    const overview = new OverviewPage(page);
    await overview.goto();
    // The list of foreign queues is reused for 30 s: a reload after that finds the new one.
    await expect(async () => {
      await page.reload();
      await expect(page.locator(`[data-testid="foreign-queue-row"][data-queue="${ref}"]`)).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 45_000 });
    const q = new QueuePage(page, ref);
    await q.goto('completed');
    await expect(q.jobRows).toHaveCount(5);
    await expect(q.jobRows.first().locator('td.num')).toHaveText('1/1');
    await expect(page.getByTestId('history-caption')).toContainText('5 jobs finished in the last hour');
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  }
});
