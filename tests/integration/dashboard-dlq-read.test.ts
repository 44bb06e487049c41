import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { readDeadLetterDetail, readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const T0 = Date.UTC(2025, 0, 31, 4, 0);
const payload = { webhookId: 'wh_1', event: 'memory.created', payload: { id: 7 } };

function deadLetter(i: number, over: Partial<DeadLetterInput> = {}): DeadLetterInput {
  return {
    queue: 'notify',
    jobId: `job-${i}`,
    jobType: 'notify',
    jobData: {
      payload: { ...payload, payload: { id: i } },
      requestId: `req-${i}`,
      dispatchedAt: T0 + i * 1000,
      tenant: { orgId: i % 2 ? 'org-odd' : 'org-even' },
    },
    error: {
      message: `HTTP 503 from receiver (${i})`,
      stack: `Error: HTTP 503\n    at dispatch (${i})`,
      errorClass: i % 3 ? 'server' : 'network',
    },
    attempts: 10,
    failedAt: T0 + i * 60_000,
    tenant: { orgId: i % 2 ? 'org-odd' : 'org-even' },
    source: 'runtime',
    ...over,
  };
}

async function seed(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await bullpen.dlq.record(deadLetter(i))).id);
  return ids;
}

describe('readDeadLetterList', () => {
  it('pages newest first with the filtered total and the per-status counts', async () => {
    bullpen = testBullpen(server.redis);
    await seed(12);
    const { filters } = parseDeadLetterFilters({ size: '25' });
    const first = await readDeadLetterList(bullpen, { ...filters, pageSize: 25 }, T0 + 3_600_000);
    expect(first.total).toBe(12);
    expect(first.pageCount).toBe(1);
    expect(first.rows.map((r) => r.originalJobId)).toEqual(Array.from({ length: 12 }, (_, i) => `job-${11 - i}`));
    expect(first.counts).toEqual({ pending: 12, replaying: 0, replayed: 0, discarded: 0, total: 12 });
    // Rows are small: a short message, no payload.
    expect(first.rows[0]).not.toHaveProperty('payload');
    expect(first.rows[0].message).toBe('HTTP 503 from receiver (11)');

    const p2 = await readDeadLetterList(bullpen, parseDeadLetterFilters({ size: '25', page: '2' }).filters);
    expect(p2.rows).toEqual([]);
    expect(p2.total).toBe(12);
  });

  it('applies the URL filters: tenant, error class, time window and page', async () => {
    bullpen = testBullpen(server.redis);
    await seed(12);
    const odd = await readDeadLetterList(bullpen, parseDeadLetterFilters({ tenant: 'org-odd', size: '25' }).filters);
    expect(odd.total).toBe(6);
    expect(odd.rows.every((r) => r.tenant?.orgId === 'org-odd')).toBe(true);

    const network = await readDeadLetterList(bullpen, parseDeadLetterFilters({ class: 'network', tenant: 'org-even', size: '25' }).filters);
    expect(network.rows.map((r) => r.originalJobId)).toEqual(['job-6', 'job-0']);

    // since=15m from 04:11:30 covers failures at 03:56:30 and later: job-0..job-11 fail at 04:00..04:11.
    const recent = await readDeadLetterList(bullpen, parseDeadLetterFilters({ since: '15m', size: '25' }).filters, T0 + 11.5 * 60_000);
    expect(recent.total).toBe(12);
    const window = await readDeadLetterList(
      bullpen,
      parseDeadLetterFilters({ from: '2025-01-31T04:03', to: '2025-01-31T04:05', size: '25' }).filters,
    );
    expect(window.rows.map((r) => r.originalJobId)).toEqual(['job-5', 'job-4', 'job-3']);

    const paged = await readDeadLetterList(bullpen, { page: 2, pageSize: 25, status: 'pending' });
    expect(paged.rows).toEqual([]);
  });

  it('reflects a replay in the row, the status filter and the counts', async () => {
    bullpen = testBullpen(server.redis);
    const [id] = await seed(3);
    await bullpen.dlq.replay(id, { by: 'alice' });
    const replayed = await readDeadLetterList(bullpen, parseDeadLetterFilters({ status: 'replayed' }).filters);
    expect(replayed.rows.map((r) => [r.id, r.status, r.replays])).toEqual([[id, 'replayed', 1]]);
    expect(replayed.counts).toMatchObject({ pending: 2, replayed: 1, total: 3 });
    expect(replayed.replayable).toBe(1);
    // Without a status, "replay all" would act on the pending matches only.
    const all = await readDeadLetterList(bullpen, parseDeadLetterFilters({}).filters);
    expect([all.total, all.replayable]).toEqual([3, 2]);
    const discarded = await readDeadLetterList(bullpen, parseDeadLetterFilters({ status: 'discarded' }).filters);
    expect(discarded.replayable).toBe(0);
  });
});

describe('readDeadLetterDetail', () => {
  it('shows the original job’s state, the error, the envelope and the replay history with job states', async () => {
    bullpen = testBullpen(server.redis);
    // The original job still sits in its queue (prioritized: the type's default priority); the DLQ entry names it.
    const queue = bullpen.queues.get('notify');
    const job = await queue.add('notify', deadLetter(1).jobData, { jobId: 'job-1' });
    const { id } = await bullpen.dlq.record(deadLetter(1));
    const before = await readDeadLetterDetail(bullpen, id);
    expect(before).toMatchObject({
      id,
      originalJobId: job.id,
      originalJobState: 'prioritized',
      status: 'pending',
      error: { message: 'HTTP 503 from receiver (1)', stack: 'Error: HTTP 503\n    at dispatch (1)' },
      envelope: { requestId: 'req-1', dispatchedAt: T0 + 1000 },
      payload: { value: { ...payload, payload: { id: 1 } }, truncated: false },
      knownType: true,
      replayHistory: [],
    });
    expect(JSON.parse(before?.payloadText ?? '')).toEqual({ ...payload, payload: { id: 1 } });

    const edited = { ...payload, event: 'memory.updated' };
    const after1 = await bullpen.dlq.replay(id, { by: 'alice', payload: edited });
    await bullpen.dlq.replay(id, { by: 'bob', expectedReplays: after1.replays.length });
    const after = await readDeadLetterDetail(bullpen, id);
    expect(after?.status).toBe('replayed');
    // Newest first, each with the state of the job it enqueued.
    expect(after?.replayHistory.map((r) => [r.by, r.edited, r.jobState])).toEqual([
      ['bob', false, 'prioritized'],
      ['alice', true, 'prioritized'],
    ]);
    const replayJob = await queue.getJob(after?.replayHistory[1].newJobId ?? '');
    expect(replayJob?.data).toMatchObject({ payload: edited, replayOf: id, tenant: { orgId: 'org-odd' } });
  });

  it('says `gone` for a job BullMQ no longer holds, and null for an unknown entry', async () => {
    bullpen = testBullpen(server.redis);
    const { id } = await bullpen.dlq.record(deadLetter(4));
    expect((await readDeadLetterDetail(bullpen, id))?.originalJobState).toBe('gone');
    expect(await readDeadLetterDetail(bullpen, 'dlq-000000000000000000000000')).toBeNull();
    expect(await readDeadLetterDetail(bullpen, 'not-an-id')).toBeNull();
  });

  it('keeps a huge payload off the page and out of the editor', async () => {
    bullpen = testBullpen(server.redis);
    const big = { ...payload, payload: { blob: 'x'.repeat(300 * 1024) } };
    const { id } = await bullpen.dlq.record(deadLetter(5, { jobData: { payload: big, requestId: 'r', dispatchedAt: T0 } }));
    const d = await readDeadLetterDetail(bullpen, id);
    expect(d?.payload.truncated).toBe(true);
    expect(d?.payload.bytes).toBeGreaterThan(300 * 1024);
    expect(d?.payloadText).toBeUndefined();
  });
});
