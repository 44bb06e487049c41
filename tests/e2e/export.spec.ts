import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import type { Bullpen } from '@/lib/bullpen';
import { expect, saveScreenshot, test } from './fixtures';

/** A queue no other spec fills; every row of this spec carries its own tenant, so other jobs never match. */
const QUEUE = 'index-rebalance';

/** Three completed jobs of `tenant` (written as BullMQ stores them: no worker runs them), one with a hostile note. */
async function seedCompleted(bullpen: Bullpen, tenant: string): Promise<string[]> {
  const queue = bullpen.queues.get(QUEUE);
  await queue.waitUntilReady();
  const now = Date.now();
  const ids = [0, 1, 2].map((i) => `${tenant}-${i}`);
  const pipe = bullpen.redis.pipeline();
  ids.forEach((id, i) => {
    const payload = { i, note: i === 0 ? '=HYPERLINK("http://x"), "quoted"\nsecond line' : `job ${i}` };
    pipe.hset(queue.toKey(id), {
      name: QUEUE,
      data: JSON.stringify({ payload, tenant: { orgId: tenant }, requestId: `r-${id}`, dispatchedAt: now }),
      opts: JSON.stringify({ attempts: 1 }),
      timestamp: String(now - 1_000 + i),
      delay: '0',
      priority: '0',
      processedOn: String(now - 500 + i),
      finishedOn: String(now + i),
      atm: '1',
      returnvalue: JSON.stringify({ ok: true }),
    });
    pipe.zadd(queue.toKey('completed'), now + i, id);
  });
  await pipe.exec();
  return ids;
}

/** Clicks a download link and returns the file's name and text. */
async function download(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: await readFile(path, 'utf8') };
}

/** Cells of a CSV text (RFC 4180: quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

async function latestAudit(bullpen: Bullpen, action: string, tenant: string) {
  const { entries } = await bullpen.audit.page({ limit: 100 });
  return entries.find((e) => e.action === action && (e.details?.filters as { tenant?: string } | undefined)?.tenant === tenant);
}

/** Dead letters a test recorded: discarded afterwards, so later specs (health counts pending ones) start clean. */
const recorded: string[] = [];
test.afterEach(async ({ bullpen }) => {
  for (const id of recorded.splice(0)) {
    if ((await bullpen.dlq.get(id))?.status === 'pending') await bullpen.dlq.discard(id, 'e2e-cleanup');
  }
});

test('an operator exports a filtered job list as CSV and NDJSON; each export is audited', async ({ page, signIn, bullpen }) => {
  const tenant = `exp-${Date.now().toString(36)}`;
  const ids = await seedCompleted(bullpen, tenant);
  await signIn('operator', `/queues/${QUEUE}?state=completed&tenant=${tenant}`);
  await expect(page.getByTestId('job-row')).toHaveCount(3);
  await expect(page.getByTestId('export-jobs-csv')).toHaveAttribute('href', new RegExp(`state=completed&tenant=${tenant}&format=csv`));
  await saveScreenshot(page, 'export-queue');

  const csv = await download(page, 'export-jobs-csv');
  expect(csv.name).toMatch(new RegExp(`^bullpen-${QUEUE}-completed-\\d{4}-\\d{2}-\\d{2}-\\d{6}\\.csv$`));
  const [header, ...rows] = parseCsv(csv.text);
  expect(header.slice(0, 4)).toEqual(['id', 'name', 'state', 'orgId']);
  expect(rows.map((r) => r[0])).toEqual([...ids].reverse());
  expect(rows.every((r) => r[2] === 'completed' && r[3] === tenant)).toBe(true);
  // The hostile payload arrives whole, quoted (the payload cell is JSON, so it starts with `{`).
  const payload = JSON.parse(rows[2][header.indexOf('payload')]);
  expect(payload.note).toBe('=HYPERLINK("http://x"), "quoted"\nsecond line');

  const nd = await download(page, 'export-jobs-ndjson');
  expect(nd.name).toMatch(/\.ndjson$/);
  const records = nd.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(records.map((r) => r.id)).toEqual([...ids].reverse());
  expect(records[0]).toMatchObject({ name: QUEUE, state: 'completed', orgId: tenant, payload: { i: 2, note: 'job 2' } });

  await expect
    .poll(async () => (await latestAudit(bullpen, 'jobs.export', tenant))?.details)
    .toMatchObject({
      format: 'ndjson',
      rows: 3,
      filters: { state: 'completed', tenant },
    });
  const entry = await latestAudit(bullpen, 'jobs.export', tenant);
  expect(entry).toMatchObject({ actor: expect.stringContaining('operator'), target: { kind: 'queue', id: QUEUE } });
});

test('an operator exports the filtered dead letters; an anonymous request gets 401 and a viewer 403', async ({
  page,
  signIn,
  bullpen,
  playwright,
  baseURL,
  contextAs,
}) => {
  const tenant = `exp-${Date.now().toString(36)}`;
  const now = Date.now();
  for (let i = 0; i < 2; i++) {
    const { id } = await bullpen.dlq.record({
      queue: 'webhook-dispatch',
      jobId: `${tenant}-${i}`,
      jobType: 'webhook-dispatch',
      jobData: {
        payload: { webhookId: 'wh_x', event: 'e', payload: { i } },
        requestId: `r-${i}`,
        dispatchedAt: now,
        tenant: { orgId: tenant },
      },
      error: { message: `@evil, "quoted" (${i})`, errorClass: 'client' },
      attempts: 1,
      failedAt: now + i,
      tenant: { orgId: tenant },
      source: 'runtime',
    });
    recorded.push(id);
  }
  await signIn('operator', `/dead-letters?tenant=${tenant}`);
  await expect(page.getByTestId('dlq-row')).toHaveCount(2);

  const csv = await download(page, 'dlq-export-csv');
  expect(csv.name).toMatch(/^bullpen-dead-letters-.*\.csv$/);
  const [header, ...rows] = parseCsv(csv.text);
  expect(rows.map((r) => r[header.indexOf('originalJobId')])).toEqual([`${tenant}-1`, `${tenant}-0`]);
  // A cell a spreadsheet would run as a formula starts with a quote.
  expect(rows.map((r) => r[header.indexOf('message')])).toEqual([`'@evil, "quoted" (1)`, `'@evil, "quoted" (0)`]);

  const nd = await download(page, 'dlq-export-ndjson');
  const records = nd.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(records.map((r) => r.originalJobId)).toEqual([`${tenant}-1`, `${tenant}-0`]);
  expect(records[0]).toMatchObject({ orgId: tenant, status: 'pending', message: '@evil, "quoted" (1)', payload: { webhookId: 'wh_x' } });
  await expect.poll(async () => (await latestAudit(bullpen, 'dlq.export', tenant))?.details).toMatchObject({ format: 'ndjson', rows: 2 });

  const anonymous = await playwright.request.newContext({ baseURL });
  for (const url of [`/api/export/dead-letters?tenant=${tenant}&format=csv`, `/api/export/queues/${QUEUE}?format=ndjson`]) {
    const res = await anonymous.get(url);
    expect(res.status()).toBe(401);
    expect(await res.text()).not.toContain(`${tenant}-`);
  }
  expect((await anonymous.get('/api/export/dead-letters?format=xlsx')).status()).toBe(400);
  await anonymous.dispose();

  const viewer = await contextAs('viewer', `/dead-letters?tenant=${tenant}`);
  await expect(viewer.page.getByTestId('dlq-row')).toHaveCount(2);
  await expect(viewer.page.getByTestId('dlq-export')).toHaveCount(0);
  expect((await viewer.page.request.get(`/api/export/dead-letters?tenant=${tenant}&format=csv`)).status()).toBe(403);

  // An unknown queue is a 404 before anything streams.
  expect((await page.request.get('/api/export/queues/no-such-queue?format=csv')).status()).toBe(404);
});
