import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import type { PayloadOf } from '@/jobs';
import type { JobHandler } from '@/lib/runtime/handler';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { verifySignature } from '@/lib/webhooks/signature';
import { WebhookStore } from '@/lib/webhooks/webhook-store';
import { WEBHOOK_TEST_EVENT, type Webhook } from '@/lib/webhooks/webhook-schema';
import { createWebhookDispatchHandler } from '@/jobs/integration/webhook-dispatch';
import { makeBullpen } from '../../helpers/make-bullpen';
import { MemorySink } from '../../helpers/memory-sink';
import { expectFullJitter, firstRetryDelays, JITTER_SAMPLES, retryDelays } from '../../helpers/jitter-spread';

/** What the loopback receiver saw of one request. */
interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether X-Signature verified against the webhook's secret and the raw body. */
  validSignature: boolean;
}

const server = useTestRedis();
let receiver: http.Server;
let receiverUrl: string;
let received: Received[];
/** Status codes the receiver answers with, in turn; 200 once they run out. */
let answers: number[];
let answeredAt: number[];
/** When set, the status for each request, before `answers` is asked. */
let answerFor: ((r: Received) => number) | undefined;
/** Runs when a request has arrived, before the receiver answers it. */
let onReceive: (() => Promise<unknown>) | undefined;
let secret = '';

let bullpen: Bullpen;
let pool: WorkerPool | undefined;
let sink: MemorySink;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        at: Date.now(),
        headers: req.headers,
        body: raw.toString('utf8'),
        validSignature: verifySignature(secret, raw, req.headers['x-signature'] as string | undefined),
      });
      void Promise.resolve(onReceive?.()).then(() => {
        const status = answerFor?.(received.at(-1)!) ?? answers.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received: status < 300, status }), () => answeredAt.push(Date.now()));
      });
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/in`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => {
  received = [];
  answers = [];
  answeredAt = [];
  answerFor = undefined;
  onReceive = undefined;
});
afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  await bullpen?.close();
});

type Handler = JobHandler<PayloadOf<'webhook-dispatch'>, unknown>;

/** A Bullpen allowed to reach the loopback receiver, a worker pool running the real handler, and a webhook. */
async function start(opts: { allowLoopback?: boolean; maxFailures?: number; events?: string[]; wrap?: (h: Handler) => Handler } = {}) {
  bullpen = makeBullpen(server.redis, { env: opts.allowLoopback === false ? {} : { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  sink = new MemorySink();
  const handler: Handler = createWebhookDispatchHandler(storesOf(bullpen));
  pool = new WorkerPool({
    connection: bullpen.workerConnection(),
    keys: bullpen.keys,
    jobs: bullpen.jobs,
    handlers: { 'webhook-dispatch': opts.wrap ? opts.wrap(handler) : handler },
    sink,
    alerter: bullpen.alerter,
    logger: silentLogger,
  });
  await pool.start();
  const webhook = await bullpen.webhooks.create({
    url: receiverUrl,
    maxFailures: opts.maxFailures,
    events: opts.events,
    description: 'test receiver',
  });
  secret = webhook.secret;
  return webhook;
}

async function waitForState(jobId: string, state: 'completed' | 'failed', timeoutMs = 15_000) {
  const queue = bullpen.queues.get('webhook-dispatch');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await queue.getJobState(jobId);
    if (s === state) return (await queue.getJob(jobId))!;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is ${s}, not ${state}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const event = { event: 'memory.created', payload: { memoryId: 'm-1', importance: 0.7 } };

describe('webhook-dispatch through the runtime', () => {
  it('POSTs a signed delivery the receiver can verify, and records it', async () => {
    const webhook = await start();
    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event }, { requestId: 'req-abc' });
    const job = await waitForState(jobId, 'completed');

    expect(received).toHaveLength(1);
    const r = received[0];
    expect(r.validSignature).toBe(true);
    expect(r.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-id': webhook.id,
      'x-delivery-id': jobId,
      'x-event': 'memory.created',
      'x-request-id': 'req-abc',
      'idempotency-key': `webhook:${webhook.id}:${jobId}`,
    });
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ id: jobId, ...event });
    expect(Date.parse(body.timestamp)).toBeGreaterThan(Date.now() - 60_000);

    expect(job.returnvalue).toMatchObject({ webhookId: webhook.id, deliveryId: jobId, statusCode: 200, duplicate: false });
    expect(job.progress).toMatchObject({ percent: 100, phase: 'delivered' });
    const [delivery] = await bullpen.webhooks.deliveries(webhook.id);
    expect(delivery).toMatchObject({ deliveryId: jobId, jobId, attempt: 1, statusCode: 200, ok: true, event: 'memory.created' });
    expect(delivery.responseSnippet).toBe('{"received":true,"status":200}');
    expect(await bullpen.idempotency.get(`webhook:${webhook.id}:${jobId}`)).toMatchObject({ status: 'completed' });
  });

  it('retries a 500 with full-jitter backoff under the same delivery id, then completes', async () => {
    const webhook = await start();
    answers = [500];
    const { jobId } = await bullpen.dispatcher.dispatch(
      'webhook-dispatch',
      { webhookId: webhook.id, deliveryId: 'dlv-500', ...event },
      { attempts: 3 },
    );
    const job = await waitForState(jobId, 'completed');

    expect(received).toHaveLength(2);
    expect(received.every((r) => r.validSignature)).toBe(true);
    expect(received.map((r) => r.headers['x-delivery-id'])).toEqual(['dlv-500', 'dlv-500']);
    expect(received[1].headers['idempotency-key']).toBe(received[0].headers['idempotency-key']);
    // The type's base delay is 1 s: the first retry waits random(0, 1 s); 1.5 s of slack
    // covers promoting the delayed job and the worker's fetch on a busy machine.
    const gap = received[1].at - answeredAt[0];
    expect(gap).toBeLessThan(1_000 + 1_500);
    // The retry waited out the delay the runtime drew for it, below 1 s.
    const delays = (await retryDelays(bullpen.redis, bullpen.queues.get('webhook-dispatch').keys.events)).get(jobId);
    expect(delays).toHaveLength(1);
    const delay = delays![0];
    expect(delay).toBeLessThanOrEqual(1_000);
    expect(gap).toBeGreaterThanOrEqual(delay);

    expect(job.attemptsMade).toBe(2);
    const deliveries = await bullpen.webhooks.deliveries(webhook.id);
    expect(deliveries.map((d) => [d.attempt, d.statusCode, d.ok])).toEqual([
      [2, 200, true],
      [1, 500, false],
    ]);
    expect(deliveries[1].error).toMatch(/HTTP 500/);
    // A success does not empty the 24 h window.
    expect(await bullpen.webhooks.failureCount(webhook.id)).toBe(1);
    expect(sink.recorded).toHaveLength(0);
  });

  it('spreads the first retries of many failed deliveries over the full-jitter window', async () => {
    // 24 failures in its 24 h window would disable a webhook with the default 10.
    const webhook = await start({ maxFailures: 100 });
    const seen = new Set<string>();
    // Each delivery's first request gets a 500, its retry a 200, in whatever order they come.
    answerFor = (r) => {
      const id = String(r.headers['x-delivery-id']);
      if (seen.has(id)) return 200;
      seen.add(id);
      return 500;
    };
    const dispatched = await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: JITTER_SAMPLES }, (_, n) => ({
        type: 'webhook-dispatch' as const,
        data: { webhookId: webhook.id, deliveryId: `dlv-spread-${n}`, ...event },
        opts: { attempts: 2 },
      })),
    );
    const jobs = await Promise.all(dispatched.map((d) => waitForState(d.jobId, 'completed')));

    expect(received).toHaveLength(2 * JITTER_SAMPLES);
    expect(jobs.map((j) => j.attemptsMade)).toEqual(jobs.map(() => 2));
    // The type's base delay is 1 s: each first retry waited random(0, 1 s).
    expectFullJitter(await firstRetryDelays(bullpen.redis, bullpen.queues.get('webhook-dispatch').keys.events, jobs), 1_000);
  });

  it('does not retry a 400: one request, the job fails, the dead letter says client', async () => {
    const webhook = await start();
    answers = [400];
    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event }, { attempts: 5 });
    const job = await waitForState(jobId, 'failed');
    const letter = await sink.waitFor('webhook-dispatch', jobId);

    expect(received).toHaveLength(1);
    expect(job.attemptsMade).toBe(1);
    expect(letter.error).toMatchObject({ errorClass: 'client', code: 'HTTP_400' });
    const [delivery] = await bullpen.webhooks.deliveries(webhook.id);
    expect(delivery).toMatchObject({ statusCode: 400, ok: false, attempt: 1 });
    // Nothing was accepted: the key is released, so an operator's replay may send it.
    expect(await bullpen.idempotency.get(`webhook:${webhook.id}:${jobId}`)).toMatchObject({ status: 'failed', retryable: true });
  });

  it('disables the webhook after maxFailures failures in 24 h, alerts once, and sends nothing more', async () => {
    const webhook = await start({ maxFailures: 3 });
    const raise = vi.spyOn(bullpen.alerter, 'raise');
    answers = [503, 503, 503, 503];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event }, { attempts: 1 });
      ids.push(jobId);
    }
    for (const id of ids) await waitForState(id, 'failed');

    const stored = await bullpen.webhooks.get(webhook.id);
    expect(stored.enabled).toBe(false);
    expect(stored.disabledReason).toBe('3 failed deliveries within 24 h (maxFailures 3)');
    const disabledAlerts = raise.mock.calls.filter(([a]) => a.reason === 'webhook_disabled');
    expect(disabledAlerts).toHaveLength(1);
    expect(disabledAlerts[0][0].fields).toMatchObject({ webhookId: webhook.id, failures: 3, maxFailures: 3 });
    // The type the alert names is the application's (shippedApp.webhookJobType): lib/webhooks names none.
    expect(disabledAlerts[0][0].type).toBe('webhook-dispatch');
    expect((await bullpen.webhooks.list()).items[0]).toMatchObject({ id: webhook.id, enabled: false });

    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event }, { attempts: 3 });
    const job = await waitForState(jobId, 'failed');
    expect(job.attemptsMade).toBe(1);
    expect(received).toHaveLength(3);
    expect((await sink.waitFor('webhook-dispatch', jobId)).error).toMatchObject({ errorClass: 'permanent' });
    expect(job.failedReason).toMatch(/disabled: 3 failed deliveries/);
  });

  it('does not repeat a delivery whose idempotency record is completed (lost ack, then a replay)', async () => {
    // The first attempt delivers, then its ack is "lost": the attempt fails as a network error.
    let lost = false;
    const webhook = await start({
      wrap: (h) => async (ctx) => {
        const result = await h(ctx);
        if (!lost) {
          lost = true;
          throw Object.assign(new Error('connection reset before the ack'), { code: 'ECONNRESET' });
        }
        return result;
      },
    });
    const data = { webhookId: webhook.id, deliveryId: 'dlv-once', ...event };
    const first = await bullpen.dispatcher.dispatch('webhook-dispatch', data, { attempts: 3 });
    const job = await waitForState(first.jobId, 'completed');

    expect(job.attemptsMade).toBe(2);
    expect(received).toHaveLength(1);
    expect(job.returnvalue).toMatchObject({ deliveryId: 'dlv-once', statusCode: 200, duplicate: true });

    // A second job for the same delivery (an operator's replay) is not sent either.
    const replay = await bullpen.dispatcher.dispatch('webhook-dispatch', data);
    const replayed = await waitForState(replay.jobId, 'completed');
    expect(replayed.returnvalue).toMatchObject({ deliveryId: 'dlv-once', duplicate: true });
    expect(received).toHaveLength(1);
    expect(await bullpen.webhooks.deliveries(webhook.id)).toHaveLength(1);
  });

  it('completes a delivery whose idempotency record vanished while the request was out, and stores the record again', async () => {
    // As when Redis restarts from its append-only file without its last second of writes,
    // the begun record among them (docs/observability.md, "Redis restarts"): the receiver
    // accepted the event, so the job completes, with no failed delivery and no dead letter.
    const webhook = await start();
    const key = `webhook:${webhook.id}:dlv-vanished`;
    let removed = 0;
    onReceive = async () => {
      removed += await bullpen.redis.del(bullpen.keys.tagged('idem', key));
    };
    const data = { webhookId: webhook.id, deliveryId: 'dlv-vanished', ...event };
    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', data, { attempts: 3 });
    const job = await waitForState(jobId, 'completed');

    expect(removed).toBe(1);
    // One attempt: the one that delivered (BullMQ counts a completed attempt too).
    expect(job.attemptsMade).toBe(1);
    expect(job.returnvalue).toMatchObject({ deliveryId: 'dlv-vanished', statusCode: 200, duplicate: false });
    expect(received).toHaveLength(1);
    expect(await bullpen.webhooks.deliveries(webhook.id)).toMatchObject([{ deliveryId: 'dlv-vanished', ok: true }]);
    expect(await bullpen.idempotency.get(key)).toMatchObject({ status: 'completed' });
    expect(sink.recorded).toHaveLength(0);

    // A replay of the same delivery finds it delivered and sends nothing.
    onReceive = undefined;
    const replay = await bullpen.dispatcher.dispatch('webhook-dispatch', data);
    expect((await waitForState(replay.jobId, 'completed')).returnvalue).toMatchObject({ duplicate: true });
    expect(received).toHaveLength(1);
  });

  it('refuses a loopback URL that the allow-list does not name, sending nothing', async () => {
    const webhook = await start({ allowLoopback: false });
    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event });
    const job = await waitForState(jobId, 'failed');
    expect(job.attemptsMade).toBe(1);
    expect(received).toHaveLength(0);
    const letter = await sink.waitFor('webhook-dispatch', jobId);
    expect(letter.error).toMatchObject({ errorClass: 'permanent' });
    expect(letter.error.message).toMatch(/127\.0\.0\.1 is a private or reserved address/);
    const [delivery] = await bullpen.webhooks.deliveries(webhook.id);
    expect(delivery).toMatchObject({ ok: false, latencyMs: 0 });
    expect(delivery.statusCode).toBeUndefined();
  });

  it('sends only the events its filter names, completing the others as not subscribed; the test event always goes', async () => {
    const webhook = await start({ events: ['memory.created', 'memory.deleted'] });
    const sent = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: webhook.id, ...event });
    const other = await bullpen.dispatcher.dispatch('webhook-dispatch', {
      webhookId: webhook.id,
      event: 'session.archived',
      payload: { sessionId: 's-1' },
    });
    const test = await bullpen.dispatcher.dispatch('webhook-dispatch', {
      webhookId: webhook.id,
      event: WEBHOOK_TEST_EVENT,
      payload: { test: true },
    });
    expect((await waitForState(sent.jobId, 'completed')).returnvalue).toMatchObject({ statusCode: 200, duplicate: false });
    expect((await waitForState(test.jobId, 'completed')).returnvalue).toMatchObject({ statusCode: 200 });
    const skipped = await waitForState(other.jobId, 'completed');
    expect(skipped.returnvalue).toEqual({
      webhookId: webhook.id,
      event: 'session.archived',
      sent: false,
      reason: 'not-subscribed',
      events: ['memory.created', 'memory.deleted'],
    });
    expect(skipped.progress).toMatchObject({ percent: 100 });
    const { logs } = await bullpen.queues.get('webhook-dispatch').getJobLogs(other.jobId);
    expect(logs.join('\n')).toMatch(/Not sent: webhook .* subscribes to memory\.created, memory\.deleted, not to session\.archived/);
    // Nothing went out for it, nothing was recorded, and nothing counts toward maxFailures.
    expect(received.map((r) => r.headers['x-event'])).toEqual(expect.arrayContaining(['memory.created', WEBHOOK_TEST_EVENT]));
    expect(received).toHaveLength(2);
    const deliveries = await bullpen.webhooks.deliveries(webhook.id);
    expect(deliveries.map((d) => d.event).sort()).toEqual([WEBHOOK_TEST_EVENT, 'memory.created']);
    expect(await bullpen.webhooks.failureCount(webhook.id)).toBe(0);
  });

  it('fails at once for a webhook that does not exist', async () => {
    await start();
    const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'wh_missing', ...event });
    const job = await waitForState(jobId, 'failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/does not exist/);
  });
});

describe('WebhookStore', () => {
  beforeEach(() => {
    bullpen = makeBullpen(server.redis);
  });

  it('creates with a generated secret and id, and never lists the secret', async () => {
    const w = await bullpen.webhooks.create({ url: 'https://example.com/hook' });
    expect(w).toMatchObject({ enabled: true, maxFailures: 10 });
    expect(w.id).toMatch(/^wh_[A-Za-z0-9_-]+$/);
    expect(w.secret.length).toBeGreaterThanOrEqual(32);
    expect(await bullpen.webhooks.get(w.id)).toEqual(w);
    const { items, total } = await bullpen.webhooks.list();
    expect(total).toBe(1);
    expect(items[0]).not.toHaveProperty('secret');
    expect(JSON.stringify(items)).not.toContain(w.secret);
  });

  it('refuses bad input with the rule and writes nothing', async () => {
    for (const bad of [
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: 'https://example.com', secret: 'short' },
      { url: 'https://example.com', maxFailures: 0 },
      { url: 'https://example.com', id: 'has space' },
      { url: 'https://example.com', extra: true },
    ]) {
      await expect(bullpen.webhooks.create(bad as never)).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    expect((await bullpen.webhooks.list()).total).toBe(0);
    const w = await bullpen.webhooks.create({ id: 'wh_fixed', url: 'https://example.com/a', secret: 's'.repeat(16) });
    await expect(bullpen.webhooks.create({ id: 'wh_fixed', url: 'https://example.com/b' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(bullpen.webhooks.update(w.id, { url: 'gopher://x' })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.webhooks.get(w.id)).url).toBe('https://example.com/a');
    await expect(bullpen.webhooks.update('wh_nope', { description: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await bullpen.webhooks.find('wh_nope')).toBeUndefined();
  });

  it('keeps its owner org through the hash, lists it, and changes or clears it by update', async () => {
    const owned = await bullpen.webhooks.create({ url: 'https://example.com/a', orgId: 'acme' });
    const unowned = await bullpen.webhooks.create({ url: 'https://example.com/b' });
    expect((await bullpen.webhooks.get(owned.id)).orgId).toBe('acme');
    expect((await bullpen.webhooks.get(unowned.id)).orgId).toBeUndefined();
    const { items } = await bullpen.webhooks.list();
    expect(items.map((w) => [w.id, w.orgId])).toEqual([
      [owned.id, 'acme'],
      [unowned.id, undefined],
    ]);
    expect((await bullpen.webhooks.update(unowned.id, { orgId: 'globex' })).orgId).toBe('globex');
    expect((await bullpen.webhooks.update(owned.id, { orgId: null })).orgId).toBeUndefined();
    // An owner is a tenant id part, checked like every tenant id (docs/security.md).
    await expect(bullpen.webhooks.create({ url: 'https://example.com/c', orgId: '..' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(bullpen.webhooks.update(unowned.id, { orgId: 'a/b' })).rejects.toMatchObject({ code: 'VALIDATION' });
    expect((await bullpen.webhooks.get(unowned.id)).orgId).toBe('globex');
  });

  it('keeps an event filter through the hash, replaces or removes it by update, and refuses a bad one changing nothing', async () => {
    const w = await bullpen.webhooks.create({ url: 'https://example.com/a', events: ['memory.created', 'order:paid'] });
    expect((await bullpen.webhooks.get(w.id)).events).toEqual(['memory.created', 'order:paid']);
    expect((await bullpen.webhooks.list()).items[0].events).toEqual(['memory.created', 'order:paid']);
    expect((await bullpen.webhooks.update(w.id, { events: ['session.archived'] })).events).toEqual(['session.archived']);
    const everything = await bullpen.webhooks.create({ url: 'https://example.com/b' });
    expect(everything.events).toBeUndefined();
    for (const events of [[], ['a', 'a'], ['has space'], ['x'.repeat(129)], Array.from({ length: 51 }, (_, i) => `e${i}`)]) {
      await expect(bullpen.webhooks.create({ url: 'https://example.com/c', events })).rejects.toMatchObject({ code: 'VALIDATION' });
      await expect(bullpen.webhooks.update(w.id, { events })).rejects.toMatchObject({ code: 'VALIDATION' });
    }
    expect((await bullpen.webhooks.list()).total).toBe(2);
    expect((await bullpen.webhooks.get(w.id)).events).toEqual(['session.archived']);
    expect((await bullpen.webhooks.update(w.id, { events: null })).events).toBeUndefined();
    expect(await bullpen.redis.hexists(bullpen.keys.tagged('webhooks', 'hook', w.id), 'events')).toBe(0);
  });

  it('updates, disables, enables (emptying the failure window) and deletes', async () => {
    const w = await bullpen.webhooks.create({ url: 'https://example.com/a', description: 'first' });
    const updated = await bullpen.webhooks.update(w.id, { url: 'https://example.com/b', description: '', maxFailures: 2 });
    expect(updated).toMatchObject({ url: 'https://example.com/b', maxFailures: 2 });
    expect(updated.description).toBeUndefined();

    await bullpen.webhooks.recordDelivery({
      deliveryId: 'd1',
      webhookId: w.id,
      jobId: 'j1',
      attempt: 1,
      latencyMs: 5,
      ok: false,
      error: 'boom',
    });
    expect(await bullpen.webhooks.failureCount(w.id)).toBe(1);
    const off = await bullpen.webhooks.disable(w.id, 'receiver migrating');
    expect(off).toMatchObject({ enabled: false, disabledReason: 'receiver migrating' });
    const on = await bullpen.webhooks.enable(w.id);
    expect(on.enabled).toBe(true);
    expect(on.disabledAt).toBeUndefined();
    expect(await bullpen.webhooks.failureCount(w.id)).toBe(0);

    expect(await bullpen.webhooks.delete(w.id)).toBe(true);
    expect(await bullpen.webhooks.find(w.id)).toBeUndefined();
    expect(await bullpen.redis.exists(bullpen.keys.tagged('webhooks', 'deliveries', w.id))).toBe(0);
    expect((await bullpen.webhooks.list()).total).toBe(0);
    expect(await bullpen.webhooks.delete(w.id)).toBe(false);
  });

  it('keeps the newest delivery records up to the cap, snippets cut to 1 KiB', async () => {
    const store = new WebhookStore(bullpen.redis, bullpen.keys, { keepDeliveries: 5 });
    const w = await store.create({ url: 'https://example.com/a', maxFailures: 100 });
    for (let i = 1; i <= 8; i++) {
      await store.recordDelivery({
        deliveryId: `d${i}`,
        webhookId: w.id,
        jobId: `j${i}`,
        attempt: 1,
        latencyMs: i,
        ok: true,
        statusCode: 200,
        responseSnippet: 'é'.repeat(1_000),
      });
    }
    const list = await store.deliveries(w.id);
    expect(list.map((d) => d.deliveryId)).toEqual(['d8', 'd7', 'd6', 'd5', 'd4']);
    expect(Buffer.byteLength(list[0].responseSnippet!)).toBeLessThanOrEqual(1_024);
    expect(list[0].responseSnippet).toMatch(/^é+$/);
    expect((await store.deliveries(w.id, { offset: 3, limit: 10 })).map((d) => d.deliveryId)).toEqual(['d5', 'd4']);
  });

  it('counts failures in a sliding 24 h window', async () => {
    let now = Date.parse('2025-03-01T00:00:00Z');
    const store = new WebhookStore(bullpen.redis, bullpen.keys, { now: () => now });
    const w: Webhook = await store.create({ url: 'https://example.com/a', maxFailures: 3 });
    const fail = (n: number) =>
      store.recordDelivery({ deliveryId: `d${n}`, webhookId: w.id, jobId: `j${n}`, attempt: 1, latencyMs: 1, ok: false, statusCode: 502 });

    expect(await fail(1)).toEqual({ failuresInWindow: 1, disabled: false });
    now += 20 * 3_600_000;
    expect(await fail(2)).toEqual({ failuresInWindow: 2, disabled: false });
    now += 5 * 3_600_000; // the first failure is now 25 h old
    expect(await fail(3)).toEqual({ failuresInWindow: 2, disabled: false });
    expect((await store.get(w.id)).enabled).toBe(true);
    expect(await fail(4)).toEqual({ failuresInWindow: 3, disabled: true });
    expect((await store.get(w.id)).disabledAt).toBe(now);
  });
});
