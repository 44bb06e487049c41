import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { discardSelected, replaySelected, startPurge, startReplayAll } from '@/dashboard/dead-letters/dead-letters-bulk';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const T0 = Date.UTC(2025, 0, 31, 4, 0);

function deadLetter(i: number, orgId = 'org-1'): DeadLetterInput {
  const payload = { webhookId: 'wh_1', event: 'memory.created', payload: { i } };
  return {
    queue: 'notify',
    jobId: `job-${i}`,
    jobType: 'notify',
    jobData: { payload, requestId: `req-${i}`, dispatchedAt: T0, tenant: { orgId } },
    error: { message: 'HTTP 503', errorClass: 'server' },
    attempts: 10,
    failedAt: T0 + i,
    tenant: { orgId },
    source: 'runtime',
  };
}

async function seed(n: number, orgId?: string, offset = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = offset; i < offset + n; i++) ids.push((await bullpen.dlq.record(deadLetter(i, orgId))).id);
  return ids;
}

const replayJobsIn = async () =>
  (await bullpen.queues.get('notify').getJobs(['prioritized', 'waiting'], 0, -1)).filter((j) => j.data.replayOf);

describe('replaySelected / discardSelected', () => {
  it('replays each selected entry once, skipping one whose replay count changed meanwhile', async () => {
    bullpen = testBullpen(server.redis);
    const [a, b, c] = await seed(3);
    await bullpen.dlq.replay(c, { by: 'bob' }); // someone else got there first
    const out = await replaySelected(
      bullpen,
      [
        { id: a, replays: 0 },
        { id: b, replays: 0 },
        { id: c, replays: 0 },
      ],
      'alice',
      { waitMs: 300 },
    );
    expect(out.done.sort()).toEqual([a, b].sort());
    // No worker runs here: enqueued and waiting, never reported done.
    expect(out.outcomes).toMatchObject({ running: 2, completed: 0, failed: 0, retrying: 0 });
    expect(out.skipped.map((s) => s.id)).toEqual([c]);
    expect(out.skipped[0].reason).toContain('replayed');
    expect(out.failed).toEqual([]);
    const jobs = await replayJobsIn();
    expect(jobs.map((j) => j.data.replayOf).sort()).toEqual([a, b, c].sort());
    expect((await bullpen.dlq.get(a))?.replays.map((r) => r.by)).toEqual(['alice']);
  });

  it('refuses an empty, oversized or duplicated selection and changes nothing', async () => {
    bullpen = testBullpen(server.redis);
    const [a] = await seed(1);
    await expect(replaySelected(bullpen, [], 'alice')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(discardSelected(bullpen, [a, a], 'alice')).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(
      discardSelected(
        bullpen,
        Array.from({ length: 201 }, () => a),
        'alice',
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.dlq.get(a))?.status).toBe('pending');
  });

  it('discards the selected entries', async () => {
    bullpen = testBullpen(server.redis);
    const ids = await seed(2);
    const out = await discardSelected(bullpen, ids, 'carol');
    expect(out.done).toEqual(ids);
    expect((await bullpen.dlq.counts()).discarded).toBe(2);
    expect((await bullpen.dlq.get(ids[0]))?.discardedBy).toBe('carol');
  });
});

describe('startReplayAll', () => {
  it('replays at most `limit` matching entries in the background, with progress and an audit entry', async () => {
    bullpen = testBullpen(server.redis);
    await seed(230, 'org-1');
    await seed(5, 'org-2', 1_000);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger, bullpen.audit);
    const { operation, finished } = await startReplayAll(bullpen, bulk, { tenant: 'org-1' }, { by: 'alice', limit: 150, now: Date.now() });
    expect(operation).toMatchObject({ kind: 'dlq.replay-all', status: 'running', total: 150, by: 'alice' });
    const done = await finished;
    expect(done).toMatchObject({ status: 'done', succeeded: 150, failed: 0, done: 150 });
    expect(done.message).toContain('Enqueued 150 replays of 150');
    // No worker runs here: the replays are said to wait, never to be done.
    expect(done.message).toContain('150 still waiting or running after 3 s');
    // What a polling tab reads is the final record.
    expect(await bulk.get(operation.id)).toEqual(done);
    // Real effects: 150 replay jobs enqueued, all of org-1; 80 org-1 entries and all of org-2 still pending.
    const jobs = await replayJobsIn();
    expect(jobs).toHaveLength(150);
    expect(new Set(jobs.map((j) => j.data.tenant.orgId))).toEqual(new Set(['org-1']));
    expect(await bullpen.dlq.counts()).toMatchObject({ pending: 85, replayed: 150 });
    const audit = await bullpen.audit.page({ limit: 5 });
    expect(audit.entries[0]).toMatchObject({ actor: 'alice', action: 'dlq.replay-all.finished', details: { succeeded: 150 } });
  });

  it('refuses statuses that cannot be replayed, and an empty match, before starting anything', async () => {
    bullpen = testBullpen(server.redis);
    await seed(2);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger);
    const now = Date.now();
    await expect(startReplayAll(bullpen, bulk, { status: 'discarded' }, { by: 'a', limit: 10, now })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(startReplayAll(bullpen, bulk, { tenant: 'org-none' }, { by: 'a', limit: 10, now })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(startReplayAll(bullpen, bulk, {}, { by: 'a', limit: 10_001, now })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.dlq.counts()).pending).toBe(2);
    expect(await replayJobsIn()).toHaveLength(0);
  });
});

describe('startPurge', () => {
  it('removes every match and only the matches', async () => {
    bullpen = testBullpen(server.redis);
    await seed(120, 'org-1');
    const keep = await seed(3, 'org-2', 1_000);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger, bullpen.audit);
    const { operation, finished } = await startPurge(bullpen, bulk, { tenant: 'org-1' }, { by: 'root', now: Date.now() });
    expect(operation).toMatchObject({ kind: 'dlq.purge', total: 120 });
    expect(await finished).toMatchObject({ status: 'done', succeeded: 120, message: 'Purged 120 dead letters.' });
    expect(await bullpen.dlq.counts()).toMatchObject({ total: 3, pending: 3 });
    expect((await bullpen.dlq.getMany(keep)).map((e) => e.tenant?.orgId)).toEqual(['org-2', 'org-2', 'org-2']);
  });

  it('refuses to purge without a filter', async () => {
    bullpen = testBullpen(server.redis);
    await seed(2);
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger);
    await expect(startPurge(bullpen, bulk, {}, { by: 'root', now: Date.now() })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.dlq.counts()).total).toBe(2);
  });
});
