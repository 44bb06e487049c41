import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { exportDeadLetterPages } from '@/dashboard/exports/export-dead-letters';
import type { ExportEnd } from '@/dashboard/client/export-format';
import { exportJobPages } from '@/dashboard/exports/export-jobs';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const T0 = 1_700_000_000_000;

/** `n` failed jobs written as BullMQ stores them; job i (id i+1) failed at T0 + i, tenant org-a for even i, named `special` every 10th. */
async function seedFailed(b: Bullpen, type: 'tidy', n: number) {
  const queue = b.queues.get(type);
  await queue.waitUntilReady();
  const pipe = b.redis.pipeline();
  for (let i = 0; i < n; i++) {
    const id = String(i + 1);
    const data = {
      payload: { i, note: i === 0 ? '=cmd, "quoted"' : 'x' },
      tenant: { orgId: i % 2 ? 'org-b' : 'org-a' },
      requestId: `r${i}`,
      dispatchedAt: T0,
    };
    pipe.hset(queue.toKey(id), {
      name: i % 10 === 0 ? 'special' : type,
      data: JSON.stringify(data),
      opts: JSON.stringify({ attempts: 3 }),
      timestamp: String(T0 + i - 1_000),
      delay: '0',
      priority: '0',
      processedOn: String(T0 + i - 10),
      finishedOn: String(T0 + i),
      atm: '3',
      failedReason: `boom ${i}`,
    });
    pipe.zadd(queue.toKey('failed'), T0 + i, id);
  }
  await pipe.exec();
}

/** Drains an export generator: every page's size, every row, and how it ended. */
async function drain<R>(gen: AsyncGenerator<R[], ExportEnd>) {
  const pages: number[] = [];
  const rows: R[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { pages, rows, end: next.value };
    pages.push(next.value.length);
    rows.push(...next.value);
  }
}

describe('job export', () => {
  it('pages through a whole state newest first, payload and tenant included', async () => {
    bullpen = testBullpen(server.redis);
    await seedFailed(bullpen, 'tidy', 450);
    const { pages, rows, end } = await drain(
      exportJobPages(bullpen, 'tidy', parseQueueFilters({ state: 'failed', page: '3', size: '10' }), { pageSize: 100 }),
    );
    // Paging of the page (page 3 of 10) is ignored: the export holds every match.
    expect(pages).toEqual([100, 100, 100, 100, 50]);
    expect(end).toEqual({ rows: 450 });
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 450 }, (_, k) => String(450 - k)));
    expect(rows.at(-1)).toMatchObject({
      id: '1',
      name: 'special',
      state: 'failed',
      orgId: 'org-a',
      attemptsMade: 3,
      maxAttempts: 3,
      failedReason: 'boom 0',
      finishedAt: new Date(T0).toISOString(),
      payload: { i: 0, note: '=cmd, "quoted"' },
    });
  });

  it('stops at the row bound and says it was cut; an exact fit is not cut', async () => {
    bullpen = testBullpen(server.redis);
    await seedFailed(bullpen, 'tidy', 250);
    const f = parseQueueFilters({ state: 'failed' });
    const cut = await drain(exportJobPages(bullpen, 'tidy', f, { pageSize: 100, maxRows: 120 }));
    expect(cut.pages).toEqual([100, 20]);
    expect(cut.end).toEqual({ rows: 120, cut: 'max-rows' });
    const exact = await drain(exportJobPages(bullpen, 'tidy', f, { pageSize: 100, maxRows: 250 }));
    expect(exact.end).toEqual({ rows: 250 });
  });

  it('applies the name and tenant filters by a chunked scan, bounded by rows and by the scan window', async () => {
    bullpen = testBullpen(server.redis);
    await seedFailed(bullpen, 'tidy', 1_000);
    const special = await drain(
      exportJobPages(bullpen, 'tidy', parseQueueFilters({ state: 'failed', name: 'special' }), { pageSize: 30, scanChunk: 64 }),
    );
    expect(special.rows.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, k) => String(991 - 10 * k)));
    expect(special.end).toEqual({ rows: 100, scanned: 1_000, scanLimit: 1_000_000 });
    expect(Math.max(...special.pages)).toBeLessThanOrEqual(30 + 64);

    const both = await drain(
      exportJobPages(bullpen, 'tidy', parseQueueFilters({ state: 'failed', name: 'special', tenant: 'org-a' }), {
        scanChunk: 100,
      }),
    );
    expect(both.rows).toHaveLength(100);
    expect(both.rows.every((r) => r.name === 'special' && r.orgId === 'org-a')).toBe(true);

    const bounded = await drain(
      exportJobPages(bullpen, 'tidy', parseQueueFilters({ state: 'failed', tenant: 'org-b' }), { maxRows: 25, scanChunk: 100 }),
    );
    expect(bounded.rows).toHaveLength(25);
    expect(bounded.rows.every((r) => r.orgId === 'org-b')).toBe(true);
    expect(bounded.end).toMatchObject({ rows: 25, cut: 'max-rows' });

    const windowed = await drain(
      exportJobPages(bullpen, 'tidy', parseQueueFilters({ state: 'failed', name: 'special' }), {
        scanLimit: 200,
        scanChunk: 64,
      }),
    );
    expect(windowed.rows.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, k) => String(991 - 10 * k)));
    expect(windowed.end).toEqual({ rows: 20, cut: 'scan-window', scanned: 200, scanLimit: 200 });
  });

  it('refuses a queue that is not one the dashboard shows', async () => {
    bullpen = testBullpen(server.redis);
    await expect(exportJobPages(bullpen, 'no-such-queue', parseQueueFilters({})).next()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(exportJobPages(bullpen, 'other:prefix~q', parseQueueFilters({})).next()).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('dead-letter export', () => {
  const deadLetter = (i: number, over: Partial<DeadLetterInput> = {}): DeadLetterInput => ({
    queue: 'notify',
    jobId: `job-${i}`,
    jobType: 'notify',
    jobData: { payload: { webhookId: 'wh_1', event: 'e', payload: { id: i } }, requestId: `req-${i}`, dispatchedAt: T0 },
    error: { message: `HTTP 503, line one\nline two (${i})`, errorClass: i % 3 ? 'server' : 'network' },
    attempts: 10,
    failedAt: T0 + i * 60_000,
    tenant: { orgId: i % 2 ? 'org-odd' : 'org-even' },
    source: 'runtime',
    ...over,
  });

  it('pages by cursor newest first, with filters, whole messages and payloads, and the bound', async () => {
    bullpen = testBullpen(server.redis);
    for (let i = 0; i < 45; i++) await bullpen.dlq.record(deadLetter(i));
    const all = await drain(exportDeadLetterPages(bullpen, parseDeadLetterFilters({ page: '2' }).filters, T0, { pageSize: 10 }));
    expect(all.pages).toEqual([10, 10, 10, 10, 5]);
    expect(all.end).toEqual({ rows: 45 });
    expect(all.rows.map((r) => r.originalJobId)).toEqual(Array.from({ length: 45 }, (_, k) => `job-${44 - k}`));
    expect(all.rows[0]).toMatchObject({
      queue: 'notify',
      orgId: 'org-even',
      status: 'pending',
      message: 'HTTP 503, line one\nline two (44)',
      failedAt: new Date(T0 + 44 * 60_000).toISOString(),
      payload: { webhookId: 'wh_1', event: 'e', payload: { id: 44 } },
    });

    const odd = await drain(exportDeadLetterPages(bullpen, parseDeadLetterFilters({ tenant: 'org-odd', class: 'server' }).filters, T0));
    expect(odd.rows.length).toBeGreaterThan(0);
    expect(odd.rows.every((r) => r.orgId === 'org-odd' && r.errorClass === 'server')).toBe(true);
    expect(odd.rows).toHaveLength(Array.from({ length: 45 }, (_, i) => i).filter((i) => i % 2 && i % 3).length);

    // `since` is resolved against the export's "now": the last 10 minutes before job-44 failed.
    const recent = await drain(exportDeadLetterPages(bullpen, parseDeadLetterFilters({ since: '15m' }).filters, T0 + 44 * 60_000));
    expect(recent.rows.map((r) => r.originalJobId)).toEqual(Array.from({ length: 16 }, (_, k) => `job-${44 - k}`));

    const cut = await drain(exportDeadLetterPages(bullpen, parseDeadLetterFilters({}).filters, T0, { pageSize: 10, maxRows: 25 }));
    expect(cut.pages).toEqual([10, 10, 5]);
    expect(cut.end).toEqual({ rows: 25, cut: 'max-rows' });
  });
});
