import type { z } from 'zod';
import type { webhookDispatchSchema } from './schemas';
import { isAppError } from '@/lib/errors/app-error';
import { classifyError } from '@/lib/errors/classify';
import { HttpError } from '@/lib/errors/http-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { HttpClient } from '@/lib/http/http-client';
import { HttpResponseError } from '@/lib/http/http-response-error';
import { SsrfGuard } from '@/lib/http/ssrf-guard';
import { IdempotencyInProgressError } from '@/lib/idempotency/in-progress-error';
import { editedReplayId } from '@/lib/jobs/replay-identity';
import { hashRequest } from '@/lib/idempotency/request-hash';
import { shouldRetry } from '@/lib/retry/retry-policy';
import type { JobContext, JobHandler } from '@/lib/runtime/handler';
import { SIGNATURE_HEADER, signPayload } from '@/lib/webhooks/signature';
import { subscribesTo, type Webhook } from '@/lib/webhooks/webhook-schema';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof webhookDispatchSchema>;

/** The requirements' (docs/requirements.md#background-workers) per-request limit; the job's own limit (30 s) leaves room to record. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Receivers answer with a short acknowledgement; more than this is not worth reading. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookDeliveredResult {
  webhookId: string;
  deliveryId: string;
  statusCode: number;
  latencyMs: number;
  /** The delivery had completed before (a retry after a lost ack, or a replay): nothing was sent. */
  duplicate: boolean;
}

/** The webhook's event filter leaves the event out: nothing was sent, and nothing counts as a failure. */
export interface WebhookNotSubscribedResult {
  webhookId: string;
  event: string;
  sent: false;
  reason: 'not-subscribed';
  /** The filter at the time, so the job's result says why. */
  events: string[];
}

export type WebhookDispatchResult = WebhookDeliveredResult | WebhookNotSubscribedResult;

export interface WebhookDispatchOptions {
  /** @defaultValue a guard allowing WEBHOOK_ALLOW_HOSTS */
  guard?: SsrfGuard;
  /** @defaultValue a client pinned through the guard's dispatcher */
  http?: HttpClient;
}

/** A delivery attempt's time limit; the idempotency lock outlives it by a margin. */
export const WEBHOOK_DISPATCH_TIMEOUT_MS = 30_000;

/**
 * Delivers one event to one registered webhook: a signed JSON POST, one HTTP attempt
 * per job attempt (BullMQ's full-jitter backoff spaces the retries), a delivery record
 * per attempt, and an idempotency record so a delivery the receiver already accepted is
 * never sent again, even when the ack was lost or the job is replayed.
 *
 * Outcomes: 2xx completes; 408/425/429/500/502/503/504, network errors and timeouts are
 * rethrown for a retry; any other answer (4xx, 3xx: redirects are not followed) fails at
 * once. Every failed attempt counts toward the webhook's auto-disable.
 */
export function createWebhookDispatchHandler(
  stores: AppStores,
  opts: WebhookDispatchOptions = {},
): JobHandler<Payload, WebhookDispatchResult> {
  const { webhooks, idempotency } = stores;
  // A holder that died frees the key after the job's own limit plus a margin; a re-run of
  // the same job takes it over at once (below).
  const lockMs = WEBHOOK_DISPATCH_TIMEOUT_MS + 30_000;
  // Built on the first job, not here: a process that registers the handler but never
  // runs a webhook job opens no connection pool.
  let client: { guard: SsrfGuard; http: HttpClient } | undefined;
  const clients = () => (client ??= buildClients(stores, opts));

  return async (ctx) => {
    await ctx.progress(0, 'preparing');
    const { guard, http } = clients();
    const webhook = await loadEnabled(stores, ctx.data.webhookId);
    if (!subscribesTo(webhook, ctx.data.event)) {
      // Not a failure: the webhook's owner chose not to receive this event. The result and
      // the job's log say so, so a completed job is never read as a delivery.
      const events = webhook.events ?? [];
      await ctx.log(`Not sent: webhook ${webhook.id} subscribes to ${events.join(', ')}, not to ${ctx.data.event}`);
      await ctx.progress(100, 'not subscribed');
      return { webhookId: webhook.id, event: ctx.data.event, sent: false, reason: 'not-subscribed', events };
    }
    const { deliveryId, replayOf } = deliveryIdentity(ctx);
    const key = ctx.idempotencyKey ?? `webhook:${webhook.id}:${deliveryId}`;
    const base = { webhookId: webhook.id, deliveryId, jobId: ctx.jobId, attempt: ctx.attempt, event: ctx.data.event, idempotencyKey: key };

    try {
      await guard.check(webhook.url);
    } catch (err) {
      await webhooks.recordDelivery({ ...base, latencyMs: 0, ok: false, error: messageOf(err) });
      throw err;
    }

    const requestHash = hashRequest({ webhookId: webhook.id, deliveryId, event: ctx.data.event, payload: ctx.data.payload });
    // The delivery's lock belongs to this job: a run of it that finds its own lock is the
    // re-run of a run whose worker died (BullMQ re-runs a job only once the job's lock has
    // lapsed), and takes the delivery over at once instead of waiting for lockMs.
    const owner = `${ctx.type}:${ctx.jobId}`;
    const begun = await idempotency.begin(key, requestHash, { lockMs, owner }).catch((err: unknown) => {
      if (isAppError(err) && err.code === 'CONFLICT') throw new PermanentError(err.message, 'IDEMPOTENCY_CONFLICT');
      throw err;
    });
    if (begun.state === 'completed') {
      ctx.logger.info({ webhookId: webhook.id, deliveryId, idempotencyKey: key }, 'delivery already completed; not sent again');
      await ctx.progress(100, 'delivered');
      return { ...(begun.response as Omit<WebhookDeliveredResult, 'duplicate'>), duplicate: true };
    }
    if (begun.state === 'in-progress') throw new IdempotencyInProgressError(key, begun.lockUntil);
    if (begun.state === 'started' && begun.takeover) {
      // The dead run's request may have reached the receiver: this one is sent with the same ids.
      ctx.logger.warn({ webhookId: webhook.id, deliveryId, idempotencyKey: key }, 'delivery taken over from a run that died; sent again');
    }
    if (begun.state === 'failed') {
      throw new PermanentError(`Delivery ${deliveryId} failed for good before: ${begun.error}`, 'IDEMPOTENT_FAILURE');
    }

    await ctx.progress(10, 'sending');
    const started = performance.now();
    let res: Awaited<ReturnType<typeof send>>;
    try {
      res = await send(http, ctx, webhook, { deliveryId, replayOf, key });
    } catch (err) {
      const response = err instanceof HttpResponseError ? err.response : undefined;
      const latencyMs = response?.latencyMs ?? Math.round(performance.now() - started);
      const message = messageOf(err);
      await webhooks.recordDelivery({
        ...base,
        statusCode: response?.status ?? (err instanceof HttpError ? err.status : undefined),
        latencyMs,
        ok: false,
        error: message,
        responseSnippet: response?.text,
      });
      // Nothing was accepted, so a later attempt or an operator's replay may send it.
      await idempotency.fail(key, message, { retryable: true });
      throw outcomeError(err, ctx.signal);
    }

    // The receiver accepted the delivery. What follows is bookkeeping: an error in it is
    // the runtime's to classify and retry (the retry finds the delivery completed), never
    // a failed delivery, and never a dead letter for an event that arrived.
    const result = { webhookId: webhook.id, deliveryId, statusCode: res.status, latencyMs: res.latencyMs };
    // The idempotency record first: if recording the delivery then fails, the retry
    // finds the delivery completed instead of sending it a second time.
    await storeOutcome(stores, { key, requestHash, lockMs, owner }, result, ctx.logger);
    await webhooks.recordDelivery({
      ...base,
      statusCode: res.status,
      latencyMs: res.latencyMs,
      ok: true,
      responseSnippet: res.text,
    });
    await ctx.progress(100, 'delivered');
    return { ...result, duplicate: false };
  };
}

/**
 * Stores an accepted delivery's outcome under its idempotency key. The record begun
 * before the request can be gone when the answer comes: a Redis restarted from its
 * append-only file loses its last second of writes (docs/observability.md, "Redis
 * restarts"). The delivery still happened, so the record is begun again and completed,
 * and a retry or replay of the job finds it delivered.
 */
async function storeOutcome(
  { idempotency }: AppStores,
  record: { key: string; requestHash: string; lockMs: number; owner: string },
  result: unknown,
  logger: JobContext<Payload>['logger'],
): Promise<void> {
  try {
    await idempotency.complete(record.key, result);
  } catch (err) {
    if (!(isAppError(err) && err.code === 'NOT_FOUND')) throw err;
    logger.warn({ idempotencyKey: record.key }, 'the idempotency record vanished during the delivery; stored again');
    await idempotency.begin(record.key, record.requestHash, { lockMs: record.lockMs, owner: record.owner });
    await idempotency.complete(record.key, result);
  }
}

function buildClients(stores: AppStores, opts: WebhookDispatchOptions): { guard: SsrfGuard; http: HttpClient } {
  const guard = opts.guard ?? new SsrfGuard({ allowHosts: stores.config.WEBHOOK_ALLOW_HOSTS });
  if (opts.http) return { guard, http: opts.http };
  const dispatcher = guard.dispatcher();
  if (!dispatcher) {
    stores.logger.warn(
      'undici Agent unavailable: webhook targets are checked before each request but not pinned (DNS-rebinding window open)',
    );
  }
  // Every target, redirects included, passes the guard (lib/http/http-client.ts checkTarget).
  return { guard, http: new HttpClient({ dispatcher, checkTarget: (url) => guard.check(url), logger: stores.logger }) };
}

async function loadEnabled(stores: AppStores, webhookId: string): Promise<Webhook> {
  const webhook = await stores.webhooks.find(webhookId);
  if (!webhook) throw new PermanentError(`Webhook "${webhookId}" does not exist`, 'WEBHOOK_NOT_FOUND');
  if (!webhook.enabled) {
    throw new PermanentError(
      `Webhook "${webhookId}" is disabled${webhook.disabledReason ? `: ${webhook.disabledReason}` : ''}`,
      'WEBHOOK_DISABLED',
    );
  }
  return webhook;
}

/** The longest delivery id an edited replay derives (the payload's own holds at most 128 characters). */
const MAX_DELIVERY_ID = 256;

/**
 * The delivery's id: the payload's `deliveryId`, or else the first job's id, so retries and
 * plain replays send the same delivery again. A replay with an edited payload is a new
 * delivery (docs/webhooks.md, "Replays"): its id is derived from the original's and the
 * replay's job id, and `replayOf` names the original for the X-Replay-Of header.
 */
export function deliveryIdentity(ctx: JobContext<Payload>): { deliveryId: string; replayOf?: string } {
  const original = ctx.data.deliveryId ?? ctx.originJobId ?? ctx.jobId;
  if (!ctx.editedReplay) return { deliveryId: original };
  return { deliveryId: editedReplayId(original, ctx.editedReplay, { max: MAX_DELIVERY_ID }), replayOf: original };
}

function send(
  http: HttpClient,
  ctx: JobContext<Payload>,
  webhook: Webhook,
  { deliveryId, replayOf, key }: { deliveryId: string; replayOf?: string; key: string },
) {
  // Signed and sent as these exact bytes: the receiver verifies the raw body.
  const body = JSON.stringify({
    id: deliveryId,
    event: ctx.data.event,
    payload: ctx.data.payload,
    timestamp: new Date().toISOString(),
  });
  return http.request(webhook.url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-id': webhook.id,
      'x-delivery-id': deliveryId,
      'x-event': ctx.data.event,
      ...(replayOf ? { 'x-replay-of': replayOf } : {}),
      [SIGNATURE_HEADER]: signPayload(webhook.secret, body),
    },
    requestId: ctx.requestId,
    idempotencyKey: key,
    signal: ctx.signal,
    // One HTTP attempt per job attempt: BullMQ retries with backoff, and each attempt
    // gets its own delivery record.
    policy: { maxAttempts: 1, timeoutMs: WEBHOOK_TIMEOUT_MS },
    redirect: 'manual',
    maxBodyBytes: MAX_RESPONSE_BYTES,
    operation: 'webhook.deliver',
    logFields: { jobId: ctx.jobId, webhookId: webhook.id, deliveryId },
  });
}

/**
 * What the runtime should see: retryable failures as they are; an HttpError it already
 * classes as non-retryable (4xx, 3xx) as it is, so the dead letter says `client`; any
 * other failure withRetry would not retry (501, an unknown error) as a PermanentError,
 * since the runtime would otherwise retry it. A cancelled job keeps its own reason.
 */
function outcomeError(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return err;
  const c = classifyError(err);
  if (shouldRetry(c)) return err;
  if (err instanceof HttpError && !c.retryable) return err;
  if (err instanceof PermanentError) return err;
  return new PermanentError(
    `Webhook delivery failed for good: ${messageOf(err)}`,
    c.httpStatus ? `HTTP_${c.httpStatus}` : c.errorClass.toUpperCase(),
  );
}

function messageOf(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } };
  const base = e?.message ?? String(err);
  // fetch hides the real reason (ECONNREFUSED, ...) in `cause`.
  return e?.cause?.message ? `${base}: ${e.cause.code ?? ''} ${e.cause.message}`.trim() : base;
}
