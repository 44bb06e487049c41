import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatchHandler } from '@/jobs/integration/webhook-dispatch';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import type { Bullpen } from '@/lib/bullpen';
import { findPendingDeadLetters, reenableWebhook, replayWebhookDeadLetters, sendTestEvent } from '@/dashboard/webhooks/webhook-operations';
import { readWebhookDetail, readWebhookList } from '@/dashboard/webhooks/webhooks-read';
import { deadLetterId } from '@/lib/dlq/entry';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { WEBHOOK_TEST_EVENT } from '@/lib/webhooks/webhook-schema';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';

/**
 * The webhooks page's read model and the operations that mend a webhook (issue 20 item 2),
 * against a real redis-server: a webhook disabled by its failures shows why, since when and
 * the failures that count; re-enabling it empties the window; its pending dead letters (and
 * no other webhook's) are replayed through the DLQ, a bounded batch at a time.
 */

let bullpen: Bullpen;
let pool: WorkerPool | undefined;
let receiver: http.Server | undefined;
const server = useTestRedis();
afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  receiver?.closeAllConnections();
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  receiver = undefined;
  await bullpen?.close();
});

const QUEUE = 'webhook-dispatch';

function deadLetter(webhookId: string, jobId: string, failedAt: number): DeadLetterInput {
  const payload = { webhookId, event: 'memory.created', payload: { jobId } };
  return {
    queue: QUEUE,
    jobId,
    jobType: QUEUE,
    jobData: { payload, requestId: `req-${jobId}`, dispatchedAt: failedAt },
    error: { message: 'HTTP 400', errorClass: 'client' },
    attempts: 1,
    failedAt,
    source: 'runtime',
  };
}

/** A webhook disabled the way the handler disables one: maxFailures failed attempts recorded, each a dead letter. */
async function disabledWebhook(maxFailures = 2, orgId?: string) {
  const hook = await bullpen.webhooks.create({
    url: 'https://user:pw@hooks.example.com/in?token=s3cr3t',
    maxFailures,
    orgId,
    events: ['memory.created'],
  });
  for (let i = 1; i <= maxFailures; i++) {
    const jobId = `${hook.id}-job-${i}`;
    await bullpen.webhooks.recordDelivery({
      webhookId: hook.id,
      deliveryId: `dlv-${i}`,
      jobId,
      attempt: 1,
      event: 'memory.created',
      idempotencyKey: `webhook:${hook.id}:dlv-${i}`,
      statusCode: 400,
      latencyMs: 12,
      ok: false,
      error: 'HTTP 400',
    });
    await bullpen.dlq.record(deadLetter(hook.id, jobId, Date.now() - 1_000 + i));
  }
  return hook;
}

describe('the webhooks page read model', () => {
  it('shows a disabled webhook without its secrets: why, since when, the failures that count, deliveries linked to their dead letters', async () => {
    bullpen = makeBullpen(server.redis);
    const hook = await disabledWebhook(2, 'acme');
    const list = await readWebhookList(bullpen, 1);
    expect(list.rows).toMatchObject([
      { id: hook.id, orgId: 'acme', events: ['memory.created'], state: 'disabled', failuresInWindow: 2, maxFailures: 2 },
    ]);
    expect(JSON.stringify(list)).not.toMatch(/s3cr3t|user:pw|secret/);

    const detail = await readWebhookDetail(bullpen, hook.id, 1);
    expect(detail.webhook).toMatchObject({
      url: 'https://…@hooks.example.com/in?token=…',
      state: 'disabled',
      disabledReason: '2 failed deliveries within 24 h (maxFailures 2)',
      failuresInWindow: 2,
    });
    expect(detail.failures.map((f) => [f.deliveryId, f.attempt])).toEqual([
      ['dlv-2', 1],
      ['dlv-1', 1],
    ]);
    expect(detail.deliveries).toHaveLength(2);
    expect(detail.deliveries[1]).toMatchObject({
      deliveryId: 'dlv-1',
      idempotencyKey: `webhook:${hook.id}:dlv-1`,
      statusCode: 400,
      ok: false,
      deadLetter: { id: deadLetterId(QUEUE, `${hook.id}-job-1`), status: 'pending' },
    });
    expect(JSON.stringify(detail)).not.toMatch(/s3cr3t|user:pw/);
  });

  it('pages deliveries: 25 a page, and says whether another follows', async () => {
    bullpen = makeBullpen(server.redis);
    const hook = await bullpen.webhooks.create({ url: 'https://hooks.example.com/in', maxFailures: 1_000 });
    for (let i = 0; i < 30; i++) {
      await bullpen.webhooks.recordDelivery({
        webhookId: hook.id,
        deliveryId: `d-${i}`,
        jobId: `j-${i}`,
        attempt: 1,
        latencyMs: 1,
        ok: true,
        statusCode: 204,
      });
    }
    const first = await readWebhookDetail(bullpen, hook.id, 1);
    expect(first.deliveries).toHaveLength(25);
    expect(first.hasNext).toBe(true);
    expect(first.deliveries[0].deliveryId).toBe('d-29');
    const second = await readWebhookDetail(bullpen, hook.id, 2);
    expect(second.deliveries.map((d) => d.deliveryId)).toEqual(['d-4', 'd-3', 'd-2', 'd-1', 'd-0']);
    expect(second.hasNext).toBe(false);
  });
});

describe('mending a webhook', () => {
  it('re-enables a disabled webhook once, emptying its failure window, and refuses an active one', async () => {
    bullpen = makeBullpen(server.redis);
    const hook = await disabledWebhook();
    const done = await reenableWebhook(bullpen, hook.id);
    expect(done.before).toMatchObject({ disabledReason: '2 failed deliveries within 24 h (maxFailures 2)', failuresInWindow: 2 });
    const now = await bullpen.webhooks.get(hook.id);
    expect(now.enabled).toBe(true);
    expect(await bullpen.webhooks.failureCount(hook.id)).toBe(0);
    await expect(reenableWebhook(bullpen, hook.id)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it("replays only this webhook's pending dead letters, at most the limit, and none while it is disabled", async () => {
    bullpen = makeBullpen(server.redis);
    const hook = await disabledWebhook(3);
    const other = await disabledWebhook(2);

    await expect(replayWebhookDeadLetters(bullpen, hook.id, { by: 'ana', limit: 50 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/re-enable it first/),
    });
    expect((await findPendingDeadLetters(bullpen, hook.id, 50)).entries).toHaveLength(3);

    await reenableWebhook(bullpen, hook.id);
    const first = await replayWebhookDeadLetters(bullpen, hook.id, { by: 'ana', limit: 2, waitMs: 0 });
    expect(first).toMatchObject({ refused: [], complete: true });
    // No worker runs here: the replays are enqueued, and said to be, not done.
    expect(first.outcomes).toMatchObject({ running: 2, completed: 0, failed: 0 });
    expect(first.outcomeText).toBe('2 still waiting or running after 0 s');
    expect(first.replayed).toHaveLength(2);
    for (const r of first.replayed) expect(r.jobId).toBe(`replay-${r.id}-1`);
    const rest = await replayWebhookDeadLetters(bullpen, hook.id, { by: 'ana', limit: 50, waitMs: 0 });
    expect(rest.replayed).toHaveLength(1);
    expect((await findPendingDeadLetters(bullpen, hook.id, 50)).entries).toEqual([]);
    // The other webhook's dead letters were not touched.
    expect((await findPendingDeadLetters(bullpen, other.id, 50)).entries).toHaveLength(2);
    const jobs = await bullpen.queues.get(QUEUE).getJobs(['prioritized', 'waiting'], 0, -1);
    expect(jobs.filter((j) => (j.data as { payload: { webhookId: string } }).payload.webhookId === hook.id)).toHaveLength(3);
  });

  it('says which replays failed at once: a receiver that still refuses one is not reported as mended', async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: { jobId: string } };
        res.writeHead(body.payload.jobId === 'still-bad' ? 422 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    bullpen = makeBullpen(server.redis, { env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
    pool = poolOf(bullpen, { [QUEUE]: createWebhookDispatchHandler(storesOf(bullpen)) });
    await pool.start();
    const hook = await bullpen.webhooks.create({ url });
    for (const [i, jobId] of ['fixed-1', 'still-bad', 'fixed-2'].entries()) {
      await bullpen.dlq.record(deadLetter(hook.id, jobId, Date.now() - 1_000 + i));
    }

    const result = await replayWebhookDeadLetters(bullpen, hook.id, { by: 'ana', limit: 50, waitMs: 10_000 });
    expect(result.replayed).toHaveLength(3);
    expect(result.outcomes).toMatchObject({ completed: 2, failed: 1, retrying: 0, running: 0 });
    const bad = deadLetterId(QUEUE, 'still-bad');
    expect(result.outcomes.failures).toEqual([{ id: bad, queue: QUEUE, jobId: `replay-${bad}-1`, message: expect.stringMatching(/422/) }]);
    expect(result.outcomeText).toMatch(/^1 failed at once .*; 2 completed$/);
    // Its dead letter is pending again, the others replayed.
    expect((await bullpen.dlq.get(bad))?.status).toBe('pending');
  });

  it("sends a test event as a real webhook-dispatch job of the owner's tenant, and refuses while disabled", async () => {
    bullpen = makeBullpen(server.redis);
    const hook = await disabledWebhook(2, 'acme');
    await expect(sendTestEvent(bullpen, hook.id, 'ana')).rejects.toMatchObject({ code: 'CONFLICT' });
    await reenableWebhook(bullpen, hook.id);
    const { jobId } = await sendTestEvent(bullpen, hook.id, 'ana');
    const job = await bullpen.queues.get(QUEUE).getJob(jobId);
    expect(job?.data).toMatchObject({
      payload: { webhookId: hook.id, event: WEBHOOK_TEST_EVENT, payload: { test: true, sentBy: 'ana' } },
      tenant: { orgId: 'acme' },
    });
  });
});
