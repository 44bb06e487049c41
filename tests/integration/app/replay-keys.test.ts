import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { createWebhookDispatchHandler } from '@/jobs/integration/webhook-dispatch';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';

/*
 * Edit-and-replay of webhook deliveries (docs/dead-letters.md, "Replay keys"): an edited
 * payload is a new request with a key and delivery id of its own, and after it no retry
 * path sends the payload it replaced.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: { id: string; payload: Record<string, unknown> };
}

const server = useTestRedis();
let receiver: http.Server;
let receiverUrl: string;
let received: Received[];
/** The receiver's answer to a delivery. */
let answer: (body: Received['body']) => number;

let bullpen: Bullpen;
let pool: WorkerPool | undefined;
const TYPE = 'webhook-dispatch';

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
      received.push({ headers: req.headers, body });
      res.writeHead(answer(body)).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/in`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});
beforeEach(async () => {
  received = [];
  // The original's payload is refused; the fixed one (`fixed: true`) is accepted.
  answer = (body) => (body.payload.fixed === true ? 200 : 400);
  bullpen = makeBullpen(server.redis, { env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  pool = poolOf(bullpen, { [TYPE]: createWebhookDispatchHandler(storesOf(bullpen)) });
  await pool.start();
});
afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  await bullpen.close();
});

async function waitForState(jobId: string, state: 'completed' | 'failed', timeoutMs = 15_000) {
  const queue = bullpen.queues.get(TYPE);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await queue.getJobState(jobId);
    if (s === state) return (await queue.getJob(jobId))!;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} is ${s}, not ${state}, after ${timeoutMs} ms (${(await queue.getJob(jobId))?.failedReason})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The pending dead letter of a failed job (written once BullMQ has recorded the failure). */
async function pendingLetter(jobId: string): Promise<DeadLetterEntry> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const e = await bullpen.dlq.getByJob(TYPE, jobId);
    if (e?.status === 'pending') return e;
    if (Date.now() > deadline) throw new Error(`no pending dead letter for ${jobId} (${e?.status})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Dispatches a delivery the receiver refuses, and returns its job id and dead letter. */
async function failedDelivery(data: Record<string, unknown>, opts: { idempotencyKey?: string } = {}) {
  const hook = await bullpen.webhooks.create({ url: receiverUrl });
  const { jobId } = await bullpen.dispatcher.dispatch(
    TYPE,
    { webhookId: hook.id, event: 'memory.created', payload: { memoryId: 'm-1' }, ...data },
    { attempts: 1, ...opts },
  );
  await waitForState(jobId, 'failed');
  return { hook, jobId, letter: await pendingLetter(jobId) };
}

/** Every retry path an operator has after a replay: the job page's Retry, the failed row's Retry, "Retry all failed", a DLQ replay. */
async function everyRetryPath(originalJobId: string, letterId: string) {
  const jobs = new JobOperations(bullpen);
  const queues = new QueueOperations(bullpen);
  const page = await jobs.retry(TYPE, originalJobId, 'op').then(
    () => 'retried',
    (err: Error) => err.message,
  );
  const row = await queues.retrySelected(TYPE, [originalJobId], 'op');
  const all = await queues.retryAllFailed(TYPE, 'op');
  const entry = (await bullpen.dlq.get(letterId))!;
  const again = await bullpen.dlq.replay(letterId, { by: 'op', expectedReplays: entry.replays.length });
  const replayJob = again.replays[again.replays.length - 1].newJobId;
  return { page, row, all, replayJob };
}

describe('edit-and-replay of a webhook delivery', () => {
  it('dispatched with a deliveryId: the edit is sent once as a new delivery, and no retry path sends the original again', async () => {
    const { hook, jobId, letter } = await failedDelivery({ deliveryId: 'memory.created:m-1' });
    expect(received).toHaveLength(1);

    const edited = {
      webhookId: hook.id,
      event: 'memory.created',
      payload: { memoryId: 'm-1', fixed: true },
      deliveryId: 'memory.created:m-1',
    };
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', payload: edited, expectedReplays: 0 });
    const replayJobId = replayed.replays[0].newJobId;
    expect(replayed.replays[0]).toMatchObject({ edited: true });
    const job = await waitForState(replayJobId, 'completed');

    const newDelivery = `memory.created:m-1:${replayJobId}`;
    expect(job.returnvalue).toMatchObject({ deliveryId: newDelivery, statusCode: 200, duplicate: false });
    expect(received).toHaveLength(2);
    expect(received[1].body).toMatchObject({ id: newDelivery, payload: { memoryId: 'm-1', fixed: true } });
    expect(received[1].headers).toMatchObject({
      'x-delivery-id': newDelivery,
      'x-replay-of': 'memory.created:m-1',
      'idempotency-key': `webhook:${hook.id}:${newDelivery}`,
    });
    expect(received[0].headers['x-replay-of']).toBeUndefined();
    // The record now holds what was sent: a replay of it sends the edit, not the original.
    expect((await bullpen.dlq.get(letter.id))!.payload).toEqual(edited);

    const paths = await everyRetryPath(jobId, letter.id);
    expect(paths.page).toMatch(/was not retried/);
    expect(paths.row).toMatchObject({ succeeded: 0, skipped: 1 });
    expect(paths.all).toMatchObject({ succeeded: 0, skipped: 1 });
    // The same edit replayed again keeps its key: delivered already, nothing is sent.
    expect((await waitForState(paths.replayJob, 'completed')).returnvalue).toMatchObject({ deliveryId: newDelivery, duplicate: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(2);
  });

  it('dispatched with an idempotency key: the edit gets a key of its own, derived from the original and the replay', async () => {
    const key = 'webhook:u-1:m-1:created:v1';
    const { hook, jobId, letter } = await failedDelivery({}, { idempotencyKey: key });

    const edited = { webhookId: hook.id, event: 'memory.created', payload: { memoryId: 'm-1', fixed: true } };
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', payload: edited, expectedReplays: 0 });
    const replayJobId = replayed.replays[0].newJobId;
    await waitForState(replayJobId, 'completed');

    expect(received).toHaveLength(2);
    expect(received[0].headers).toMatchObject({ 'x-delivery-id': jobId, 'idempotency-key': key });
    expect(received[1].headers).toMatchObject({
      'x-delivery-id': `${jobId}:${replayJobId}`,
      'x-replay-of': jobId,
      'idempotency-key': `${key}:${replayJobId}`,
    });
    expect(received[1].body.payload).toEqual({ memoryId: 'm-1', fixed: true });
    expect(await bullpen.idempotency.get(key)).toMatchObject({ status: 'failed' });
    expect(await bullpen.idempotency.get(`${key}:${replayJobId}`)).toMatchObject({ status: 'completed' });

    const paths = await everyRetryPath(jobId, letter.id);
    expect(paths.page).toMatch(/was not retried/);
    expect(paths.all).toMatchObject({ succeeded: 0 });
    await waitForState(paths.replayJob, 'completed');
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(2);
  });

  it('an edited replay that fails again: every retry path sends the edit, never the original', async () => {
    const { hook, jobId, letter } = await failedDelivery({ deliveryId: 'memory.created:m-2' });
    // The receiver refuses the first edit too.
    answer = () => 400;
    const edited = {
      webhookId: hook.id,
      event: 'memory.created',
      payload: { memoryId: 'm-2', fixed: true },
      deliveryId: 'memory.created:m-2',
    };
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', payload: edited, expectedReplays: 0 });
    const replayJobId = replayed.replays[0].newJobId;
    await waitForState(replayJobId, 'failed');
    const reopened = await pendingLetter(replayJobId);
    expect(reopened.failures.map((f) => f.jobId)).toEqual([jobId, replayJobId]);
    expect(received).toHaveLength(2);

    answer = () => 200;
    const paths = await everyRetryPath(jobId, letter.id);
    // The original is refused by name of the replay that replaced it; "Retry all" retries that replay.
    expect(paths.page).toMatch(new RegExp(`replayed as ${replayJobId}`));
    expect(paths.row).toMatchObject({ succeeded: 0, skipped: 1 });
    expect(paths.all).toMatchObject({ succeeded: 1, skipped: 1 });
    await waitForState(replayJobId, 'completed');
    // The DLQ replay sends the edit under its key: delivered by the retried replay (or refused
    // while that one held the key, then found delivered), it is not sent again.
    expect((await waitForState(paths.replayJob, 'completed')).returnvalue).toMatchObject({ duplicate: true });
    await new Promise((r) => setTimeout(r, 300));

    const after = received.slice(1);
    expect(after).toHaveLength(2);
    for (const r of after) {
      expect(r.body.payload).toEqual({ memoryId: 'm-2', fixed: true });
      expect(r.headers['x-delivery-id']).toBe(`memory.created:m-2:${replayJobId}`);
    }
  });

  it('a replay of the unchanged payload is the same delivery: same id and key, no X-Replay-Of', async () => {
    answer = () => 503;
    const { hook, jobId, letter } = await failedDelivery({});
    answer = () => 200;
    // An "edit" that changes nothing is no edit.
    const same = { webhookId: hook.id, event: 'memory.created', payload: { memoryId: 'm-1' } };
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', payload: same, expectedReplays: 0 });
    expect(replayed.replays[0].edited).toBe(false);
    await waitForState(replayed.replays[0].newJobId, 'completed');

    expect(received).toHaveLength(2);
    expect(received[1].headers).toMatchObject({ 'x-delivery-id': jobId, 'idempotency-key': `webhook:${hook.id}:${jobId}` });
    expect(received[1].headers['x-replay-of']).toBeUndefined();
  });
});
