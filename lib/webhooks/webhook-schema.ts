import { z } from 'zod';
import { tenantIdPart } from '../jobs/tenant';

/** Letters, digits, `_` and `-`: safe inside Redis keys, URLs and log lines. */
export const webhookIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a webhook id holds 1-64 letters, digits, _ or -');

/** An event name as producers dispatch it (`memory.created`); the same shape the job's `event` takes. */
export const webhookEventSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'an event name holds letters, digits, ".", ":", "_" or "-"');

/** At most this many events in one filter: a filter is a short list, read on every delivery. */
export const MAX_WEBHOOK_EVENTS = 50;

/**
 * The events a webhook subscribes to. Exact names; duplicates are refused so a typo does
 * not hide behind a repeat. Absent means every event.
 */
const eventsSchema = z
  .array(webhookEventSchema)
  .min(1, 'an event filter names at least one event; leave it out to receive every event')
  .max(MAX_WEBHOOK_EVENTS, `an event filter names at most ${MAX_WEBHOOK_EVENTS} events`)
  .refine((a) => new Set(a).size === a.length, 'an event filter names each event once');

/**
 * The operators' test event (the webhooks page's "Send test event"). It is delivered
 * whatever the filter says: a test of the endpoint must reach it.
 */
export const WEBHOOK_TEST_EVENT = 'bullpen.test';

/** Whether a webhook with this filter receives `event`. */
export function subscribesTo(webhook: { events?: readonly string[] }, event: string): boolean {
  return webhook.events === undefined || event === WEBHOOK_TEST_EVENT || webhook.events.includes(event);
}

const urlSchema = z
  .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
  .max(2_048, 'a webhook URL holds at most 2048 characters');

/** One base schema for the entity; the variants below pick from it. */
export const webhookSchema = z.object({
  id: webhookIdSchema,
  url: urlSchema,
  /**
   * The organisation the webhook belongs to: a job created from the dashboard may name
   * it only for this tenant. Absent on webhooks registered before owners existed; only
   * an admin may add jobs that name an unowned webhook (docs/security.md).
   */
  orgId: tenantIdPart.optional(),
  /** HMAC key of X-Signature. Never shown in lists or logs. */
  secret: z.string().min(16, 'a webhook secret holds at least 16 characters').max(256),
  enabled: z.boolean(),
  /** Failed deliveries within 24 h that disable the webhook. */
  maxFailures: z.number().int().min(1).max(10_000),
  description: z.string().max(500).optional(),
  /** The events it receives (exact names); absent: every event dispatched to it. */
  events: eventsSchema.optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  disabledAt: z.number().int().optional(),
  disabledReason: z.string().max(500).optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

/** What lists and the dashboard see: everything but the secret. */
export const webhookSummarySchema = webhookSchema.omit({ secret: true });
export type WebhookSummary = z.infer<typeof webhookSummarySchema>;

/** @defaultValue maxFailures 10, enabled true, a generated secret and id */
export const DEFAULT_MAX_FAILURES = 10;

export const webhookCreateSchema = webhookSchema
  .pick({ url: true, description: true, orgId: true, events: true })
  .extend({
    id: webhookIdSchema.optional(),
    secret: webhookSchema.shape.secret.optional(),
    enabled: z.boolean().default(true),
    maxFailures: webhookSchema.shape.maxFailures.default(DEFAULT_MAX_FAILURES),
  })
  .strict();
export type WebhookCreateInput = z.input<typeof webhookCreateSchema>;

/**
 * Enabling and disabling have their own calls, since they touch the failure window.
 * `orgId` gives an unowned webhook its owner (or moves it); `null` makes it unowned.
 * `events` replaces the filter; `null` removes it (every event again).
 */
export const webhookUpdateSchema = webhookSchema
  .pick({ url: true, secret: true, maxFailures: true, description: true })
  .extend({ orgId: tenantIdPart.nullable(), events: eventsSchema.nullable() })
  .partial()
  .strict();
export type WebhookUpdateInput = z.input<typeof webhookUpdateSchema>;

/** At most this much of a receiver's answer is kept per delivery. */
export const RESPONSE_SNIPPET_BYTES = 1_024;

/** One HTTP attempt of one delivery. */
export const deliveryRecordSchema = z.object({
  deliveryId: z.string().min(1).max(128),
  webhookId: webhookIdSchema,
  jobId: z.string().min(1).max(256),
  /** The job's attempt number (1 for the first). */
  attempt: z.number().int().min(1),
  /** The `idempotency-key` the request carried (records written before it was kept have none). */
  idempotencyKey: z.string().min(1).max(512).optional(),
  event: z.string().max(128).optional(),
  /** Absent when no answer came (network error, timeout, refusal). */
  statusCode: z.number().int().optional(),
  latencyMs: z.number().int().min(0),
  ok: z.boolean(),
  error: z.string().max(2_000).optional(),
  /** The start of the receiver's answer, at most RESPONSE_SNIPPET_BYTES bytes. */
  responseSnippet: z.string().optional(),
  at: z.number().int(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>;

/** One failed attempt in a webhook's 24 h window: what counts toward `maxFailures`. */
export const windowFailureSchema = z.object({
  at: z.number().int(),
  deliveryId: z.string(),
  attempt: z.number().int().min(1),
});
export type WindowFailure = z.infer<typeof windowFailureSchema>;
