import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { DEAD_LETTER_STATUSES } from '@/lib/dlq/dead-letter-id';
import { chainRecordId } from '@/lib/dlq/entry';
import { windowFailureSchema, type WebhookSummary } from '@/lib/webhooks/webhook-schema';
import { pageCountOf } from '@/dashboard/client/pagination';
import { truncateText } from '@/dashboard/jobs/truncate';
import { redactWebhookUrl } from './webhook-url';
/** Webhooks per page of the list. */
export const WEBHOOKS_PAGE_SIZE = 50;
/** Delivery records per page of a webhook (newest first; the store keeps the last 1,000). */
export const DELIVERIES_PAGE_SIZE = 25;
/** Window failures listed (the count is exact whatever their number). */
const FAILURES_SHOWN = 25;
/** Longest error or answer a delivery row carries. */
const ROW_TEXT_BYTES = 300;

/** A webhook as every signed-in user sees it: no secret, its URL redacted. */
export const webhookRowSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().optional(),
  /** The tenant the webhook belongs to (lib/webhooks); absent on one registered before owners existed. */
  orgId: z.string().optional(),
  /** The events it receives; absent: every event dispatched to it. */
  events: z.array(z.string()).optional(),
  state: z.enum(['active', 'disabled']),
  /** When it was disabled (or, active, last changed). */
  since: z.number().int(),
  disabledReason: z.string().optional(),
  maxFailures: z.number().int(),
  /** Failed attempts in the last 24 h: the webhook is disabled when they reach maxFailures. */
  failuresInWindow: z.number().int(),
  createdAt: z.number().int(),
});
export type WebhookRow = z.infer<typeof webhookRowSchema>;

export const webhookListSchema = z.object({
  rows: z.array(webhookRowSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageCount: z.number().int(),
});
export type WebhookList = z.infer<typeof webhookListSchema>;

export const deliveryRowSchema = z.object({
  at: z.number().int(),
  deliveryId: z.string(),
  /** Absent on records written before the key was kept. */
  idempotencyKey: z.string().optional(),
  jobId: z.string(),
  attempt: z.number().int(),
  event: z.string().optional(),
  statusCode: z.number().int().optional(),
  latencyMs: z.number().int(),
  ok: z.boolean(),
  error: z.string().optional(),
  /** The dead letter of the delivery's job chain, when the chain failed for good. */
  deadLetter: z.object({ id: z.string(), status: z.enum(DEAD_LETTER_STATUSES) }).optional(),
});
export type DeliveryRow = z.infer<typeof deliveryRowSchema>;

export const webhookDetailSchema = z.object({
  webhook: webhookRowSchema,
  failures: z.array(windowFailureSchema),
  deliveries: z.array(deliveryRowSchema),
  page: z.number().int(),
  /** More delivery records after this page. */
  hasNext: z.boolean(),
  /** The job type that delivers the application's webhooks (its webhookJobType); null when it has none. */
  deliveryJobType: z.string().nullable(),
});
export type WebhookDetail = z.infer<typeof webhookDetailSchema>;

function toRow(w: WebhookSummary, failuresInWindow: number): WebhookRow {
  return {
    id: w.id,
    url: redactWebhookUrl(w.url),
    description: w.description,
    orgId: w.orgId,
    events: w.events,
    state: w.enabled ? 'active' : 'disabled',
    since: (w.enabled ? w.updatedAt : w.disabledAt) ?? w.updatedAt,
    disabledReason: w.enabled ? undefined : w.disabledReason,
    maxFailures: w.maxFailures,
    failuresInWindow,
    createdAt: w.createdAt,
  };
}

/** One page of webhooks, oldest first, each with its failures in the window (one ZCOUNT each). */
export async function readWebhookList(bullpen: Bullpen, page: number): Promise<WebhookList> {
  const p = Math.max(1, Math.trunc(page));
  const { items, total } = await bullpen.webhooks.list({ offset: (p - 1) * WEBHOOKS_PAGE_SIZE, limit: WEBHOOKS_PAGE_SIZE });
  const counts = await Promise.all(items.map((w) => bullpen.webhooks.failureCount(w.id)));
  return { rows: items.map((w, i) => toRow(w, counts[i])), total, page: p, pageCount: pageCountOf(total, WEBHOOKS_PAGE_SIZE) };
}

/**
 * One webhook (NOT_FOUND when there is none): its state, the failures that count toward
 * maxFailures, and one page of delivery records, each linked to its job and, when its job
 * chain failed for good, its dead letter (one read of the page's records).
 */
export async function readWebhookDetail(bullpen: Bullpen, id: string, page: number): Promise<WebhookDetail> {
  const p = Math.max(1, Math.min(Math.trunc(page), Math.ceil(1_000 / DELIVERIES_PAGE_SIZE)));
  const webhook = await bullpen.webhooks.get(id);
  const [window, records] = await Promise.all([
    bullpen.webhooks.windowFailures(id, { limit: FAILURES_SHOWN }),
    // One more than a page, to know whether another follows.
    bullpen.webhooks.deliveries(id, { offset: (p - 1) * DELIVERIES_PAGE_SIZE, limit: DELIVERIES_PAGE_SIZE + 1 }),
  ]);
  const shown = records.slice(0, DELIVERIES_PAGE_SIZE);
  const type = bullpen.webhookJobType;
  const chainIds = type ? [...new Set(shown.map((r) => chainRecordId(type, r.jobId)))] : [];
  const entries = new Map((await bullpen.dlq.getMany(chainIds)).map((e) => [e.id, e]));
  const { secret: _secret, ...summary } = webhook;
  return {
    webhook: toRow(summary, window.count),
    failures: window.failures,
    deliveries: shown.map((r) => {
      const entry = type ? entries.get(chainRecordId(type, r.jobId)) : undefined;
      return {
        at: r.at,
        deliveryId: r.deliveryId,
        idempotencyKey: r.idempotencyKey,
        jobId: r.jobId,
        attempt: r.attempt,
        event: r.event,
        statusCode: r.statusCode,
        latencyMs: r.latencyMs,
        ok: r.ok,
        error: r.error === undefined ? undefined : truncateText(r.error, ROW_TEXT_BYTES).text,
        deadLetter: entry ? { id: entry.id, status: entry.status } : undefined,
      };
    }),
    page: p,
    hasNext: records.length > DELIVERIES_PAGE_SIZE,
    deliveryJobType: type ?? null,
  };
}
