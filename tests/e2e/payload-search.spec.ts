import type { Page, Request } from '@playwright/test';
import type { Bullpen } from '@/lib/bullpen';
import { expect, saveScreenshot, test } from './fixtures';

/** A queue no other spec runs jobs on: its completed set only holds what specs seed. */
const QUEUE = 'index-rebalance';

/**
 * 2,500 completed jobs (written as BullMQ stores them), so a search takes three steps of 1,000.
 * Every 500th carries `marker` in its payload; returns those ids, newest first.
 */
async function seed(bullpen: Bullpen, marker: string): Promise<string[]> {
  const queue = bullpen.queues.get(QUEUE);
  await queue.waitUntilReady();
  const now = Date.now();
  const marked: string[] = [];
  const pipe = bullpen.redis.pipeline();
  for (let i = 0; i < 2_500; i++) {
    const id = `${marker}-${i}`;
    const hit = i % 500 === 7;
    if (hit) marked.unshift(id);
    const payload = { i, ...(hit ? { marker, note: `found ${marker}` } : { note: 'hay' }) };
    pipe.hset(queue.toKey(id), {
      name: QUEUE,
      data: JSON.stringify({ payload, requestId: `r-${id}`, dispatchedAt: now }),
      opts: '{}',
      timestamp: String(now + i),
      processedOn: String(now + i),
      finishedOn: String(now + i),
      atm: '1',
      returnvalue: 'null',
    });
    pipe.zadd(queue.toKey('completed'), now + i, id);
  }
  await pipe.exec();
  return marked;
}

/** Slows every search step by `ms` so progress can be seen between steps; counts the steps asked for. */
async function slowSearch(page: Page, ms: number): Promise<{ requests: number; finished: number; failed: number }> {
  const seen = { requests: 0, finished: 0, failed: 0 };
  await page.route('**/api/live/queues/*/search?*', async (route) => {
    seen.requests++;
    await new Promise((r) => setTimeout(r, ms));
    await route.continue().catch(() => undefined);
  });
  // How each search request ended for the page: answered, or failed (an abort).
  const isSearch = (r: Request) => /\/api\/live\/queues\/[^/]+\/search\?/.test(r.url());
  page.on('requestfinished', (r) => void (isSearch(r) && seen.finished++));
  page.on('requestfailed', (r) => void (isSearch(r) && seen.failed++));
  return seen;
}

test.afterAll(async ({ bullpen }) => {
  await bullpen.queues.get(QUEUE).clean(0, 10_000, 'completed');
});

test('a viewer searches payloads by text and by path=value, with progress, and opens a match', async ({ page, signIn, bullpen }) => {
  const marker = `srch${Date.now().toString(36)}`;
  const marked = await seed(bullpen, marker);
  await signIn('viewer', `/queues/${QUEUE}?state=completed`);
  await slowSearch(page, 400);

  await page.getByTestId('payload-search-text').fill(`found ${marker}`);
  await page.getByTestId('payload-search-submit').click();
  const status = page.getByTestId('payload-search-status');
  const progress = page.getByTestId('payload-search-progress');
  // Between steps the bar stands part-way.
  await expect(status).toHaveAttribute('data-state', 'running');
  await expect(status).toContainText('Searching');
  await expect.poll(async () => Number(await progress.getAttribute('data-value'))).toBeGreaterThan(0);
  await expect(status).toHaveAttribute('data-state', 'done');
  await expect(progress).toHaveAttribute('data-value', '100');
  const results = page.getByTestId('payload-search-result');
  await expect(results).toHaveCount(marked.length);
  expect(await results.evaluateAll((els) => els.map((e) => e.getAttribute('data-job-id')))).toEqual(marked);
  await expect(status).toContainText(`${marked.length} matches in`);
  await saveScreenshot(page, 'payload-search');

  await page.getByTestId('payload-search-text').fill('');
  await page.getByTestId('payload-search-path').fill(`payload.marker=${marker}`);
  await page.getByTestId('payload-search-submit').click();
  await expect(status).toHaveAttribute('data-state', 'done');
  await expect(results).toHaveCount(marked.length);
  await results.first().getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/queues/${QUEUE}/jobs/${marked[0]}$`));
});

test('cancel stops a search between steps: no further request, the progress stays where it was', async ({ page, signIn, bullpen }) => {
  const marker = `srch${Date.now().toString(36)}`;
  await seed(bullpen, marker);
  await signIn('viewer', `/queues/${QUEUE}?state=completed`);
  const seen = await slowSearch(page, 1_500);

  await page.getByTestId('payload-search-text').fill(`found ${marker}`);
  await page.getByTestId('payload-search-submit').click();
  const status = page.getByTestId('payload-search-status');
  // The first step is in: 1,000 of the window searched, the second under way.
  await expect(status).toHaveAttribute('data-scanned', '1000');
  await page.getByTestId('payload-search-cancel').click();
  await expect(status).toHaveAttribute('data-state', 'cancelled');
  await expect(status).toContainText('Cancelled after 1,000 of');
  const asked = seen.requests;
  // The step in flight was aborted, not answered: the search's loop returns on an abort, so
  // no step can follow it. Counted once every request the page sent has ended.
  await expect.poll(() => seen.finished + seen.failed).toBe(asked);
  expect(seen).toEqual({ requests: asked, finished: asked - 1, failed: 1 });
  await expect(status).toHaveAttribute('data-scanned', '1000');
  await expect(page.getByTestId('payload-search-cancel')).toHaveCount(0);
  await expect(page.getByTestId('payload-search-submit')).toBeEnabled();
});

test('a bad search is refused with the rule; signed out it is a 401', async ({ page, signIn, playwright, baseURL }) => {
  await signIn('viewer', `/queues/${QUEUE}?state=completed`);
  const bad = await page.request.get(`/api/live/queues/${QUEUE}/search?state=completed&match=a..b%3D1`);
  expect(bad.status()).toBe(400);
  expect((await bad.json()).message).toContain('names joined by dots');
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get(`/api/live/queues/${QUEUE}/search?state=completed&q=x`)).status()).toBe(401);
  await anonymous.dispose();
});
