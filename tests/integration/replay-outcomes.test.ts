import { afterEach, describe, expect, it } from 'vitest';
import { replaySelected, startReplayAll } from '@/dashboard/dead-letters/dead-letters-bulk';
import { readDeadLetterDetail, readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { awaitReplayOutcome } from '@/dashboard/dead-letters/dead-letters-replay-outcome';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobContext } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { poolOf } from '../helpers/pool-of';
import { testBullpen } from '../helpers/test-bullpen';
import { useTestRedis } from '../helpers/use-test-redis';

/*
 * A replay from the dashboard reports what its job did first, within one bounded wait,
 * one by one and in bulk: a replay whose handler refuses it at once is a failure with the
 * handler's error, counted apart from those that completed or still run, and the entry
 * says its last replay failed (issue 20, docs/dead-letters.md). On the test table, with a
 * `notify` handler whose answer per receiver the test sets; the shipped webhook handler's
 * own refusals are tests/integration/app/dashboard-dlq-replay.test.ts and
 * dlq-replay-outcomes.test.ts.
 */
const TYPE = 'notify';
type Answer = 'refuse' | 'unavailable' | 'ok';

const server = useTestRedis();
let bullpen: Bullpen;
let pool: WorkerPool | undefined;
/** What the handler answers for a receiver (the payload's webhookId); unavailable unless set. */
const answers = new Map<string, Answer>();

afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  answers.clear();
  await bullpen.close();
});

async function notify(ctx: JobContext<{ webhookId: string }>): Promise<string> {
  const answer = answers.get(ctx.data.webhookId) ?? 'unavailable';
  if (answer === 'refuse') throw new PermanentError(`Receiver "${ctx.data.webhookId}" is gone: operator removed it`, 'RECEIVER_GONE');
  if (answer === 'unavailable') throw new HttpError(503, 'receiver unavailable');
  return 'delivered';
}

async function start(run = true): Promise<void> {
  // Closed in afterEach, after the pool that runs on it.
  bullpen = await testBullpen(server.redis).ready();
  pool = poolOf(bullpen, { [TYPE]: notify as (ctx: JobContext) => Promise<string> });
  if (run) await pool.start();
}

/** A notification to `receiver` that failed its one attempt (503), dead-lettered. */
async function deadLetter(receiver: string, i = 0): Promise<DeadLetterEntry> {
  const { jobId } = await bullpen.dispatcher.dispatch(TYPE, { webhookId: receiver, event: 'e', payload: { i } }, { attempts: 1 });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const letter = await bullpen.dlq.getByJob(TYPE, jobId);
    if (letter?.status === 'pending') return letter;
    if (Date.now() > deadline) throw new Error('no dead letter');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a replay from the dashboard, reported as it turned out', () => {
  it('a replay refused at once is a failure with its error, and the entry says its last replay failed', async () => {
    await start();
    const letter = await deadLetter('gone');
    answers.set('gone', 'refuse');
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    const jobId = replayed.replays[0].newJobId;
    // The replay is dated before its job was added, so a failure of that job, however fast
    // a worker is, is after it: the page and the row can then say the last replay failed.
    const job = await bullpen.queues.get(TYPE).getJob(jobId);
    expect(replayed.replays[0].at).toBeLessThanOrEqual(job!.timestamp);

    const started = Date.now();
    const outcome = await awaitReplayOutcome(bullpen, letter, jobId);
    expect(Date.now() - started).toBeLessThan(3_000 + 1_000);
    expect(outcome).toMatchObject({
      state: 'failed',
      error: { code: 'RECEIVER_GONE', errorClass: 'permanent', message: expect.stringMatching(/is gone: operator removed it/) },
    });
    expect(outcome.state === 'failed' && outcome.error.advice).toMatch(/fix what the error names first/);

    const detail = (await readDeadLetterDetail(bullpen, letter.id))!;
    expect(detail.status).toBe('pending');
    expect(detail.lastReplayFailed).toMatchObject({ jobId, edited: false, error: { code: 'RECEIVER_GONE' } });
    const [row] = (await readDeadLetterList(bullpen, { page: 1, pageSize: 50 })).rows;
    expect(row).toMatchObject({ id: letter.id, status: 'pending', lastReplayFailed: { jobId, edited: false, code: 'RECEIVER_GONE' } });
    expect(row.message).toMatch(/is gone: operator removed it/);
  });

  it('a replay that completes is a success, and the entry has no failed replay to show', async () => {
    await start();
    const letter = await deadLetter('back');
    answers.set('back', 'ok');
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    expect(await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId)).toEqual({ state: 'completed' });
    expect((await readDeadLetterDetail(bullpen, letter.id))!.lastReplayFailed).toBeUndefined();
    const [row] = (await readDeadLetterList(bullpen, { page: 1, pageSize: 50 })).rows;
    expect(row).toMatchObject({ id: letter.id, status: 'replayed' });
    expect(row.lastReplayFailed).toBeUndefined();
  });

  it('a replay whose first attempt fails is retrying, with the error', async () => {
    await start();
    const letter = await deadLetter('flaky');
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    const outcome = await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId);
    // notify's own attempts (10): the replay does not inherit the dead job's one.
    expect(outcome).toMatchObject({ state: 'retrying', attempts: 10, error: { message: expect.stringMatching(/receiver unavailable/) } });
    expect(outcome.state === 'retrying' && outcome.attemptsMade).toBeGreaterThanOrEqual(1);
  });

  it('with no worker free, it is waiting once the bounded wait is over', async () => {
    await start();
    const letter = await deadLetter('idle');
    await pool!.close(5_000);
    pool = undefined;
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    const started = Date.now();
    expect(await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId, 500)).toMatchObject({ state: 'waiting' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('bulk replays report what their jobs did', () => {
  /** Two dead letters of a receiver now gone and one of a receiver back: replays of the first two fail at once. */
  async function scene(): Promise<{ refused: DeadLetterEntry[]; healthy: DeadLetterEntry }> {
    await start();
    const letters = [await deadLetter('gone', 0), await deadLetter('gone', 1), await deadLetter('back', 2)];
    answers.set('gone', 'refuse');
    answers.set('back', 'ok');
    return { refused: letters.slice(0, 2), healthy: letters[2] };
  }

  it('replay selected counts the replays that failed at once apart, within the bounded wait', async () => {
    const { refused, healthy } = await scene();
    const started = Date.now();
    const out = await replaySelected(
      bullpen,
      [...refused, healthy].map((l) => ({ id: l.id, replays: 0 })),
      'op',
    );
    expect(Date.now() - started).toBeLessThan(3_000 + 1_500);
    expect(out.done).toHaveLength(3);
    expect(out.outcomes).toMatchObject({ failed: 2, completed: 1, retrying: 0, running: 0 });
    expect(out.outcomes?.failures.map((f) => f.id).sort()).toEqual(refused.map((l) => l.id).sort());
    expect(out.outcomes?.failures[0].message).toMatch(/is gone: operator removed it/);
  });

  it('replay all counts them as failed, and its message says they failed at once', async () => {
    const { refused } = await scene();
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger);
    const { finished } = await startReplayAll(bullpen, bulk, { type: TYPE }, { by: 'op', limit: 100, now: Date.now() });
    const op = await finished;
    expect(op).toMatchObject({ status: 'done', succeeded: 1, failed: 2, skipped: 0 });
    expect(op.message).toMatch(/2 failed at once/);
    expect(op.message).toMatch(/1 completed/);
    expect(op.message).toContain(refused[0].id.slice(0, 4));
  });
});
