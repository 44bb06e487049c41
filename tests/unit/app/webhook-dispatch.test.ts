import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import type { AppStores } from '@/jobs/app-stores';
import { createWebhookDispatchHandler, WEBHOOK_TIMEOUT_MS } from '@/jobs/integration/webhook-dispatch';
import { AppError } from '@/lib/errors/app-error';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { HttpClient } from '@/lib/http/http-client';
import type { HttpResponse } from '@/lib/http/http-response';
import { HttpResponseError } from '@/lib/http/http-response-error';
import type { SsrfGuard } from '@/lib/http/ssrf-guard';
import type { BeginResult } from '@/lib/idempotency/idempotency-store';
import { IdempotencyInProgressError } from '@/lib/idempotency/in-progress-error';
import { hashRequest } from '@/lib/idempotency/request-hash';
import { editedReplayId } from '@/lib/jobs/replay-identity';
import type { JobContext } from '@/lib/runtime/handler';
import { signPayload } from '@/lib/webhooks/signature';
import type { Webhook } from '@/lib/webhooks/webhook-schema';
import { capturingLogger } from '../../helpers/capturing-logger';

/**
 * The webhook-dispatch handler with its collaborators held in memory: the webhook store,
 * the idempotency store, the SSRF guard and the HTTP client are fakes that record what
 * they were asked and answer what the test says. Each outcome of a delivery (sent, not
 * subscribed, refused, a duplicate, in progress, failed before, each kind of failed
 * request) and what it records is asked without Redis or a receiver;
 * tests/integration/app/webhook-dispatch.test.ts is the test of it through the runtime.
 */
type Payload = { webhookId: string; event: string; payload: Record<string, unknown>; deliveryId?: string };

const webhook: Webhook = {
  id: 'wh_1',
  url: 'https://hooks.example.test/in',
  secret: 's'.repeat(32),
  enabled: true,
  maxFailures: 10,
  createdAt: 1,
  updatedAt: 1,
};

const ok = (over: Partial<HttpResponse> = {}): HttpResponse => ({
  status: 202,
  headers: {},
  text: '{"received":true}',
  truncated: false,
  latencyMs: 17,
  attempts: 1,
  requestId: 'req-1',
  ...over,
});

function setup(
  over: {
    webhook?: Webhook | undefined;
    begin?: BeginResult | (() => Promise<BeginResult>);
    complete?: () => Promise<void>;
    send?: () => Promise<HttpResponse>;
    check?: () => Promise<unknown>;
    guard?: SsrfGuard;
    http?: HttpClient;
    config?: Record<string, unknown>;
  } = {},
) {
  const calls: string[] = [];
  const deliveries: Array<Record<string, unknown>> = [];
  const { logger, lines } = capturingLogger();
  const stored = 'webhook' in over ? over.webhook : webhook;
  const webhooks = {
    find: vi.fn(async () => stored),
    recordDelivery: vi.fn(async (d: Record<string, unknown>) => {
      calls.push('recordDelivery');
      deliveries.push(d);
    }),
  };
  const begin = over.begin ?? { state: 'started', takeover: false, attempts: 1 };
  const idempotency = {
    begin: vi.fn(async (_key: string, _hash: string, _opts: unknown) => {
      calls.push('begin');
      return typeof begin === 'function' ? begin() : begin;
    }),
    complete: vi.fn(async () => {
      calls.push('complete');
      if (over.complete) await over.complete();
    }),
    fail: vi.fn(async () => void calls.push('fail')),
  };
  const guard =
    over.guard ?? ({ check: vi.fn(over.check ?? (async () => ({}))), dispatcher: vi.fn(() => undefined) } as unknown as SsrfGuard);
  const http =
    over.http ??
    ({
      request: vi.fn(async () => {
        calls.push('request');
        return over.send ? over.send() : ok();
      }),
    } as unknown as HttpClient);
  const stores = { webhooks, idempotency, logger, config: { WEBHOOK_ALLOW_HOSTS: [], ...over.config } } as unknown as AppStores;
  const handler = createWebhookDispatchHandler(stores, { guard, http });
  return { handler, stores, webhooks, idempotency, guard, http, calls, deliveries, lines, logger };
}

function ctxOf(logger: AppStores['logger'], over: Omit<Partial<JobContext<Payload>>, 'data'> & { data?: Partial<Payload> } = {}) {
  const progress: Array<[number, string | undefined]> = [];
  const log: string[] = [];
  const { data, ...rest } = over;
  const ctx: JobContext<Payload> = {
    jobId: '41',
    type: 'webhook-dispatch',
    data: { webhookId: 'wh_1', event: 'memory.created', payload: { memoryId: 'm-1' }, ...data },
    requestId: 'req-abc',
    attempt: 2,
    maxAttempts: 8,
    signal: new AbortController().signal,
    progress: async (percent, phase) => void progress.push([percent, phase]),
    log: async (line) => void log.push(line),
    logger,
    ...rest,
  };
  return { ctx, progress, log };
}

const base = { webhookId: 'wh_1', deliveryId: '41', jobId: '41', attempt: 2, event: 'memory.created', idempotencyKey: 'webhook:wh_1:41' };

describe('webhook-dispatch: a delivery the receiver accepts', () => {
  it('sends one signed POST with the delivery’s headers and limits', async () => {
    const { handler, http, guard, logger } = setup();
    const { ctx } = ctxOf(logger);
    await handler(ctx);
    expect(guard.check).toHaveBeenCalledWith(webhook.url);
    expect(http.request).toHaveBeenCalledTimes(1);
    const [url, req] = vi.mocked(http.request).mock.calls[0]!;
    expect(url).toBe(webhook.url);
    const body = String(req!.body);
    expect(JSON.parse(body)).toEqual({ id: '41', event: 'memory.created', payload: { memoryId: 'm-1' }, timestamp: expect.any(String) });
    expect(new Date(JSON.parse(body).timestamp).toISOString()).toBe(JSON.parse(body).timestamp);
    expect(req).toEqual({
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-webhook-id': 'wh_1',
        'x-delivery-id': '41',
        'x-event': 'memory.created',
        'X-Signature': signPayload(webhook.secret, body),
      },
      requestId: 'req-abc',
      idempotencyKey: 'webhook:wh_1:41',
      signal: ctx.signal,
      policy: { maxAttempts: 1, timeoutMs: WEBHOOK_TIMEOUT_MS },
      redirect: 'manual',
      maxBodyBytes: 64 * 1024,
      operation: 'webhook.deliver',
      logFields: { jobId: '41', webhookId: 'wh_1', deliveryId: '41' },
    });
    expect(WEBHOOK_TIMEOUT_MS).toBe(10_000);
  });

  it('begins the idempotency record under the job’s own lock, completes it, then records the delivery', async () => {
    const { handler, idempotency, calls, deliveries, logger } = setup();
    const { ctx, progress } = ctxOf(logger);
    const result = await handler(ctx);
    const requestHash = hashRequest({ webhookId: 'wh_1', deliveryId: '41', event: 'memory.created', payload: { memoryId: 'm-1' } });
    expect(idempotency.begin).toHaveBeenCalledWith('webhook:wh_1:41', requestHash, { lockMs: 60_000, owner: 'webhook-dispatch:41' });
    const delivered = { webhookId: 'wh_1', deliveryId: '41', statusCode: 202, latencyMs: 17 };
    expect(idempotency.complete).toHaveBeenCalledWith('webhook:wh_1:41', delivered);
    expect(calls).toEqual(['begin', 'request', 'complete', 'recordDelivery']);
    expect(deliveries).toEqual([{ ...base, statusCode: 202, latencyMs: 17, ok: true, responseSnippet: '{"received":true}' }]);
    expect(result).toEqual({ ...delivered, duplicate: false });
    expect(progress).toEqual([
      [0, 'preparing'],
      [10, 'sending'],
      [100, 'delivered'],
    ]);
  });

  it('keys the delivery by the payload’s id, else the first job’s, and takes the job’s idempotency key', async () => {
    const { handler, idempotency, http, logger } = setup();
    await handler(ctxOf(logger, { originJobId: '7' }).ctx);
    expect(idempotency.begin).toHaveBeenLastCalledWith('webhook:wh_1:7', expect.any(String), expect.anything());
    await handler(ctxOf(logger, { originJobId: '7', data: { deliveryId: 'd-9' } }).ctx);
    expect(idempotency.begin).toHaveBeenLastCalledWith('webhook:wh_1:d-9', expect.any(String), expect.anything());
    expect(vi.mocked(http.request).mock.lastCall![1]!.headers).toMatchObject({ 'x-delivery-id': 'd-9' });
    await handler(ctxOf(logger, { idempotencyKey: 'k-1' }).ctx);
    expect(idempotency.begin).toHaveBeenLastCalledWith('k-1', expect.any(String), expect.anything());
    expect(vi.mocked(http.request).mock.lastCall![1]).toMatchObject({ idempotencyKey: 'k-1' });
  });

  it('sends an edited replay as a new delivery that names the original', async () => {
    const { handler, http, logger } = setup();
    const result = await handler(ctxOf(logger, { originJobId: '7', editedReplay: 'r-3' }).ctx);
    const id = editedReplayId('7', 'r-3', { max: 256 });
    expect(id).toBe('7:r-3');
    expect(result).toMatchObject({ deliveryId: id });
    expect(vi.mocked(http.request).mock.lastCall![1]!.headers).toMatchObject({ 'x-delivery-id': id, 'x-replay-of': '7' });
    // The longest id an edit derives is 256 characters.
    const long = 'x'.repeat(200);
    const r2 = await handler(ctxOf(logger, { editedReplay: long, data: { deliveryId: 'd'.repeat(100) } }).ctx);
    expect(r2).toMatchObject({ deliveryId: editedReplayId('d'.repeat(100), long, { max: 256 }) });
    expect((r2 as { deliveryId: string }).deliveryId).toHaveLength(256);
  });

  it('sends again, with a warning, a delivery taken over from a run that died', async () => {
    const { handler, http, lines, logger } = setup({ begin: { state: 'started', takeover: true, attempts: 2 } });
    await handler(ctxOf(logger).ctx);
    expect(http.request).toHaveBeenCalledTimes(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        webhookId: 'wh_1',
        deliveryId: '41',
        idempotencyKey: 'webhook:wh_1:41',
        msg: 'delivery taken over from a run that died; sent again',
      }),
    );
  });

  it('warns of nothing on a first run', async () => {
    const { handler, lines, logger } = setup();
    await handler(ctxOf(logger).ctx);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('stores the outcome again when the idempotency record vanished during the request', async () => {
    let completes = 0;
    const { handler, idempotency, calls, lines, logger } = setup({
      complete: async () => {
        if (completes++ === 0) throw new AppError('NOT_FOUND', 'no record');
      },
    });
    await expect(handler(ctxOf(logger).ctx)).resolves.toMatchObject({ duplicate: false });
    expect(calls).toEqual(['begin', 'request', 'complete', 'begin', 'complete', 'recordDelivery']);
    expect(idempotency.begin).toHaveBeenLastCalledWith('webhook:wh_1:41', expect.any(String), {
      lockMs: 60_000,
      owner: 'webhook-dispatch:41',
    });
    expect(vi.mocked(idempotency.begin).mock.calls[1]![1]).toBe(vi.mocked(idempotency.begin).mock.calls[0]![1]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        idempotencyKey: 'webhook:wh_1:41',
        msg: 'the idempotency record vanished during the delivery; stored again',
      }),
    );
  });

  it('lets any other error of the bookkeeping through, unrecorded, for the runtime to retry', async () => {
    for (const err of [new AppError('UNAVAILABLE', 'redis gone'), new Error('NOT_FOUND')]) {
      const { handler, calls, logger } = setup({ complete: async () => Promise.reject(err) });
      await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
      expect(calls).toEqual(['begin', 'request', 'complete']);
    }
  });
});

describe('webhook-dispatch: nothing sent', () => {
  it('completes an event the webhook does not subscribe to, saying so', async () => {
    const { handler, http, idempotency, logger } = setup({ webhook: { ...webhook, events: ['memory.deleted', 'session.ended'] } });
    const { ctx, progress, log } = ctxOf(logger);
    await expect(handler(ctx)).resolves.toEqual({
      webhookId: 'wh_1',
      event: 'memory.created',
      sent: false,
      reason: 'not-subscribed',
      events: ['memory.deleted', 'session.ended'],
    });
    expect(log).toEqual(['Not sent: webhook wh_1 subscribes to memory.deleted, session.ended, not to memory.created']);
    expect(progress).toEqual([
      [0, 'preparing'],
      [100, 'not subscribed'],
    ]);
    expect(http.request).not.toHaveBeenCalled();
    expect(idempotency.begin).not.toHaveBeenCalled();
  });

  it('fails for good for a webhook that does not exist or is disabled', async () => {
    const missing = setup({ webhook: undefined });
    await expect(missing.handler(ctxOf(missing.logger).ctx)).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'WEBHOOK_NOT_FOUND',
      message: 'Webhook "wh_1" does not exist',
    });
    expect(missing.webhooks.find).toHaveBeenCalledWith('wh_1');
    const off = setup({ webhook: { ...webhook, enabled: false, disabledReason: '10 failures in 24 h' } });
    await expect(off.handler(ctxOf(off.logger).ctx)).rejects.toMatchObject({
      code: 'WEBHOOK_DISABLED',
      message: 'Webhook "wh_1" is disabled: 10 failures in 24 h',
    });
    const offNoReason = setup({ webhook: { ...webhook, enabled: false } });
    await expect(offNoReason.handler(ctxOf(offNoReason.logger).ctx)).rejects.toMatchObject({ message: 'Webhook "wh_1" is disabled' });
    for (const s of [missing, off, offNoReason]) expect(s.http.request).not.toHaveBeenCalled();
  });

  it('records a target the guard refuses as a failed delivery, and fails with the guard’s error', async () => {
    const refusal = new PermanentError('Request refused: 10.0.0.1 is a private address', 'SSRF_BLOCKED');
    const { handler, deliveries, idempotency, http, logger } = setup({ check: async () => Promise.reject(refusal) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(refusal);
    expect(deliveries).toEqual([{ ...base, latencyMs: 0, ok: false, error: refusal.message }]);
    expect(idempotency.begin).not.toHaveBeenCalled();
    expect(http.request).not.toHaveBeenCalled();
  });

  it('returns a delivery completed before as a duplicate, without sending it', async () => {
    const response = { webhookId: 'wh_1', deliveryId: '41', statusCode: 200, latencyMs: 5 };
    const { handler, http, lines, deliveries, logger } = setup({ begin: { state: 'completed', response } });
    const { ctx, progress } = ctxOf(logger);
    await expect(handler(ctx)).resolves.toEqual({ ...response, duplicate: true });
    expect(http.request).not.toHaveBeenCalled();
    expect(deliveries).toEqual([]);
    expect(progress.at(-1)).toEqual([100, 'delivered']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        webhookId: 'wh_1',
        deliveryId: '41',
        idempotencyKey: 'webhook:wh_1:41',
        msg: 'delivery already completed; not sent again',
      }),
    );
  });

  it('waits for a delivery another run holds', async () => {
    const { handler, http, logger } = setup({ begin: { state: 'in-progress', lockUntil: 5_000 } });
    const err = await handler(ctxOf(logger).ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdempotencyInProgressError);
    expect(err).toMatchObject({ key: 'webhook:wh_1:41', lockExpiresAt: 5_000 });
    expect(http.request).not.toHaveBeenCalled();
  });

  it('fails for good a delivery that failed for good before', async () => {
    const { handler, http, logger } = setup({ begin: { state: 'failed', error: 'HTTP 410' } });
    await expect(handler(ctxOf(logger).ctx)).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'IDEMPOTENT_FAILURE',
      message: 'Delivery 41 failed for good before: HTTP 410',
    });
    expect(http.request).not.toHaveBeenCalled();
  });

  it('fails for good when the delivery’s key holds another request, and lets other refusals through', async () => {
    const conflict = setup({ begin: async () => Promise.reject(new AppError('CONFLICT', 'key reused with another request')) });
    await expect(conflict.handler(ctxOf(conflict.logger).ctx)).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'IDEMPOTENCY_CONFLICT',
      message: 'key reused with another request',
    });
    for (const err of [new AppError('UNAVAILABLE', 'redis gone'), Object.assign(new Error('plain'), { code: 'CONFLICT' })]) {
      const s = setup({ begin: async () => Promise.reject(err) });
      await expect(s.handler(ctxOf(s.logger).ctx)).rejects.toBe(err);
      expect(s.http.request).not.toHaveBeenCalled();
    }
  });
});

describe('webhook-dispatch: a request that fails', () => {
  const answered = (status: number, over: Partial<HttpResponse> = {}) =>
    new HttpResponseError(ok({ status, text: `status ${status}`, latencyMs: 23, ...over }), 'POST', webhook.url);

  it('records a retryable answer with its status and snippet, frees the key for a retry, and throws it as it is', async () => {
    const err = answered(503);
    const { handler, deliveries, idempotency, calls, logger } = setup({ send: async () => Promise.reject(err) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
    expect(deliveries).toEqual([{ ...base, statusCode: 503, latencyMs: 23, ok: false, error: err.message, responseSnippet: 'status 503' }]);
    expect(idempotency.fail).toHaveBeenCalledWith('webhook:wh_1:41', err.message, { retryable: true });
    expect(calls).toEqual(['begin', 'request', 'recordDelivery', 'fail']);
    expect(idempotency.complete).not.toHaveBeenCalled();
  });

  it('throws a client answer as it is, so its dead letter says client', async () => {
    const err = answered(404);
    const { handler, logger } = setup({ send: async () => Promise.reject(err) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
  });

  it('fails for good an answer the retry policy does not retry, naming its status', async () => {
    const err = answered(501);
    const { handler, deliveries, logger } = setup({ send: async () => Promise.reject(err) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'HTTP_501',
      message: `Webhook delivery failed for good: ${err.message}`,
    });
    expect(deliveries[0]).toMatchObject({ statusCode: 501 });
  });

  it('records an HTTP error without a response by its status and the time it took', async () => {
    const err = new HttpError(409, 'conflict at the receiver');
    const { handler, deliveries, logger } = setup({ send: async () => Promise.reject(err) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
    expect(deliveries).toEqual([
      { ...base, statusCode: 409, latencyMs: expect.any(Number), ok: false, error: 'conflict at the receiver', responseSnippet: undefined },
    ]);
  });

  it('records a network error with its cause, no status and the time it took, and throws it for a retry', async () => {
    const err = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 10.1.1.1:443'), { code: 'ECONNREFUSED' }),
    });
    const { handler, deliveries, idempotency, logger } = setup({
      send: async () => {
        await new Promise((r) => setTimeout(r, 30));
        throw err;
      },
    });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
    const message = 'fetch failed: ECONNREFUSED connect ECONNREFUSED 10.1.1.1:443';
    expect(deliveries).toEqual([
      { ...base, statusCode: undefined, latencyMs: expect.any(Number), ok: false, error: message, responseSnippet: undefined },
    ]);
    expect(Number.isInteger(deliveries[0]!.latencyMs)).toBe(true);
    expect(deliveries[0]!.latencyMs).toBeGreaterThanOrEqual(25);
    expect(deliveries[0]!.latencyMs).toBeLessThan(10_000);
    expect(idempotency.fail).toHaveBeenCalledWith('webhook:wh_1:41', message, { retryable: true });
  });

  it('words a cause without a code', async () => {
    const err = new TypeError('fetch failed', { cause: new Error('socket hang up') });
    const { handler, deliveries, logger } = setup({ send: async () => Promise.reject(err) });
    await expect(handler(ctxOf(logger).ctx)).rejects.toBe(err);
    expect(deliveries[0]).toMatchObject({ error: 'fetch failed:  socket hang up' });
  });

  it('fails for good an error the policy does not retry, by its class, and keeps a permanent one as it is', async () => {
    const weird = new RangeError('bad header value');
    const s1 = setup({ send: async () => Promise.reject(weird) });
    await expect(s1.handler(ctxOf(s1.logger).ctx)).rejects.toMatchObject({
      name: 'PermanentError',
      code: 'UNKNOWN',
      message: 'Webhook delivery failed for good: bad header value',
    });
    const permanent = new PermanentError('Request refused: redirect to a private address', 'SSRF_BLOCKED');
    const s2 = setup({ send: async () => Promise.reject(permanent) });
    await expect(s2.handler(ctxOf(s2.logger).ctx)).rejects.toBe(permanent);
    const thrown = 'a string';
    const s3 = setup({ send: async () => Promise.reject(thrown) });
    await expect(s3.handler(ctxOf(s3.logger).ctx)).rejects.toMatchObject({
      message: expect.stringMatching(/^Webhook delivery failed for good: a string$/),
    });
    expect(s3.deliveries[0]).toMatchObject({ error: 'a string' });
  });

  it('keeps the error of a cancelled or timed-out attempt as it is', async () => {
    const controller = new AbortController();
    const weird = new RangeError('aborted mid-body');
    const { handler, logger } = setup({
      send: async () => {
        controller.abort();
        throw weird;
      },
    });
    await expect(handler(ctxOf(logger, { signal: controller.signal }).ctx)).rejects.toBe(weird);
  });
});

describe('webhook-dispatch: its clients', () => {
  it('builds them on the first job, once, and warns when the guard cannot pin connections', async () => {
    const guard = { check: vi.fn(async () => Promise.reject(new PermanentError('refused'))), dispatcher: vi.fn(() => undefined) };
    const { logger, lines } = capturingLogger();
    const stores = {
      webhooks: { find: async () => webhook, recordDelivery: async () => undefined },
      logger,
      config: { WEBHOOK_ALLOW_HOSTS: [] },
    } as unknown as AppStores;
    const handler = createWebhookDispatchHandler(stores, { guard: guard as unknown as SsrfGuard });
    expect(guard.dispatcher).not.toHaveBeenCalled();
    await expect(handler(ctxOf(logger).ctx)).rejects.toThrow('refused');
    await expect(handler(ctxOf(logger).ctx)).rejects.toThrow('refused');
    expect(guard.dispatcher).toHaveBeenCalledTimes(1);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({
        msg: 'undici Agent unavailable: webhook targets are checked before each request but not pinned (DNS-rebinding window open)',
      }),
    ]);
  });

  it('passes the allow-list to its own guard, and checks every target of its own client through it', async () => {
    const server = http.createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
      const { logger, lines } = capturingLogger();
      const deliveries: Array<Record<string, unknown>> = [];
      const stores = {
        webhooks: {
          find: async () => ({ ...webhook, url }),
          recordDelivery: async (d: Record<string, unknown>) => void deliveries.push(d),
        },
        idempotency: { begin: async () => ({ state: 'started', takeover: false, attempts: 1 }), complete: async () => undefined },
        logger,
        config: { WEBHOOK_ALLOW_HOSTS: ['127.0.0.1'] },
      } as unknown as AppStores;
      await expect(createWebhookDispatchHandler(stores)(ctxOf(logger).ctx)).resolves.toMatchObject({ statusCode: 200, duplicate: false });
      // Its own guard pins each connection to the address it checked: no warning of an open window.
      expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
      // Without the allow-list the guard refuses the same loopback target before anything is sent.
      deliveries.length = 0;
      const closed = createWebhookDispatchHandler({ ...stores, config: { WEBHOOK_ALLOW_HOSTS: [] } } as unknown as AppStores);
      await expect(closed(ctxOf(logger).ctx)).rejects.toMatchObject({ name: 'PermanentError' });
      expect(deliveries).toEqual([expect.objectContaining({ latencyMs: 0, ok: false })]);
      // A guard handed in checks the target once in the handler and once in the client.
      const check = vi.fn(async (_url: string | URL) => ({}));
      const guard = { check, dispatcher: () => undefined } as unknown as SsrfGuard;
      await expect(createWebhookDispatchHandler(stores, { guard })(ctxOf(logger).ctx)).resolves.toMatchObject({ statusCode: 200 });
      expect(check.mock.calls.map((c) => String(c[0]))).toEqual([url, url]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
