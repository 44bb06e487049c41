import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readDeadLetterDetail, readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { awaitReplayOutcome } from '@/dashboard/dead-letters/dead-letters-replay-outcome';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { createWebhookDispatchHandler } from '@/jobs/integration/webhook-dispatch';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';
import { useStatusReceiver } from '../../helpers/status-receiver';

/*
 * The dead-letter page's replay reports what the replayed job did first (the action waits
 * a bounded time for it), and an entry whose last replay failed says so with its error.
 */
const TYPE = 'webhook-dispatch';
const server = useTestRedis();
const receiver = useStatusReceiver(400);
let bullpen: Bullpen;
let pool: WorkerPool | undefined;

afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  await bullpen.close();
});

async function start(run = true) {
  bullpen = makeBullpen(server.redis, { env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  pool = poolOf(bullpen, { [TYPE]: createWebhookDispatchHandler(storesOf(bullpen)) });
  if (run) await pool.start();
}

/** A delivery the receiver refused (400), dead-lettered. */
async function deadLetter(): Promise<{ hookId: string; letter: DeadLetterEntry }> {
  receiver.status = 400;
  const hook = await bullpen.webhooks.create({ url: receiver.url });
  const { jobId } = await bullpen.dispatcher.dispatch(
    TYPE,
    { webhookId: hook.id, event: 'e', payload: {}, deliveryId: 'd-1' },
    { attempts: 1 },
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    const letter = await bullpen.dlq.getByJob(TYPE, jobId);
    if (letter?.status === 'pending') return { hookId: hook.id, letter };
    if (Date.now() > deadline) throw new Error('no dead letter');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a replay from the dashboard, reported as it turned out', () => {
  it('a replay refused at once (a disabled webhook) is a failure with its error, and the entry says its last replay failed', async () => {
    await start();
    const { hookId, letter } = await deadLetter();
    await bullpen.webhooks.disable(hookId, 'operator switched it off');
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
      error: { code: 'WEBHOOK_DISABLED', errorClass: 'permanent', message: expect.stringMatching(/is disabled: operator switched it off/) },
    });
    expect(outcome.state === 'failed' && outcome.error.advice).toMatch(/fix what the error names first/);

    const detail = (await readDeadLetterDetail(bullpen, letter.id))!;
    expect(detail.status).toBe('pending');
    expect(detail.lastReplayFailed).toMatchObject({ jobId, edited: false, error: { code: 'WEBHOOK_DISABLED' } });

    // Its list row says so too, from the history the list already reads, with that replay's error.
    const [row] = (await readDeadLetterList(bullpen, { page: 1, pageSize: 50 })).rows;
    expect(row).toMatchObject({ id: letter.id, status: 'pending', lastReplayFailed: { jobId, edited: false, code: 'WEBHOOK_DISABLED' } });
    expect(row.message).toMatch(/is disabled: operator switched it off/);
  });

  it('a replay that completes is a success, and the entry has no failed replay to show', async () => {
    await start();
    const { letter } = await deadLetter();
    receiver.status = 200;
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    expect(await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId)).toEqual({ state: 'completed' });
    expect((await readDeadLetterDetail(bullpen, letter.id))!.lastReplayFailed).toBeUndefined();
    const [row] = (await readDeadLetterList(bullpen, { page: 1, pageSize: 50 })).rows;
    expect(row).toMatchObject({ id: letter.id, status: 'replayed' });
    expect(row.lastReplayFailed).toBeUndefined();
  });

  it('a replay whose first attempt fails is retrying, with the error', async () => {
    await start();
    const { letter } = await deadLetter();
    receiver.status = 503;
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    const outcome = await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId);
    expect(outcome).toMatchObject({ state: 'retrying', attempts: 10, error: { message: expect.stringMatching(/503/) } });
    expect(outcome.state === 'retrying' && outcome.attemptsMade).toBeGreaterThanOrEqual(1);
  });

  it('with no worker free, it is waiting once the bounded wait is over', async () => {
    await start();
    const { letter } = await deadLetter();
    await pool!.close(5_000);
    pool = undefined;
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 0 });
    const started = Date.now();
    expect(await awaitReplayOutcome(bullpen, letter, replayed.replays[0].newJobId, 500)).toMatchObject({ state: 'waiting' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
