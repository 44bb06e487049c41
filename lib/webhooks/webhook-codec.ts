import { RESPONSE_SNIPPET_BYTES, webhookSchema, type Webhook, type WebhookSummary } from './webhook-schema';

/**
 * How a webhook is laid out in its Redis hash (flat strings; `enabled` as '1'/'0' so
 * the Lua scripts can test it) and how records are trimmed before they are stored.
 */

/** The webhook without its secret. */
export function toSummary(webhook: Webhook): WebhookSummary {
  const { secret: _secret, ...summary } = webhook;
  return summary;
}

export function toHash(w: Webhook): Record<string, string> {
  const h: Record<string, string> = {
    id: w.id,
    url: w.url,
    secret: w.secret,
    enabled: w.enabled ? '1' : '0',
    maxFailures: String(w.maxFailures),
    createdAt: String(w.createdAt),
    updatedAt: String(w.updatedAt),
  };
  if (w.orgId) h.orgId = w.orgId;
  if (w.description) h.description = w.description;
  if (w.disabledAt !== undefined) h.disabledAt = String(w.disabledAt);
  if (w.disabledReason) h.disabledReason = w.disabledReason;
  if (w.events) h.events = JSON.stringify(w.events);
  return h;
}

export function fromHash(h: Record<string, string>): Webhook {
  return webhookSchema.parse({
    id: h.id,
    url: h.url,
    orgId: h.orgId,
    secret: h.secret,
    enabled: h.enabled === '1',
    maxFailures: Number(h.maxFailures),
    description: h.description,
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
    disabledAt: h.disabledAt !== undefined ? Number(h.disabledAt) : undefined,
    disabledReason: h.disabledReason,
    events: h.events !== undefined ? JSON.parse(h.events) : undefined,
  });
}

/** At most RESPONSE_SNIPPET_BYTES bytes of `text`, cut on a character boundary. */
export function snippet(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= RESPONSE_SNIPPET_BYTES) return text;
  // A cut inside a multi-byte character decodes to U+FFFD; drop that partial character.
  return bytes
    .subarray(0, RESPONSE_SNIPPET_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
