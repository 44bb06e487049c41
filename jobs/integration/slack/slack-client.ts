import { z } from 'zod';
import type { HttpClient } from '@/lib/http/http-client';
import { slackApiError } from './slack-api-error';

/** A channel message as Slack returns it (only the fields Bullpen reads). */
export const slackMessageSchema = z
  .object({
    ts: z.string().regex(/^\d+\.\d+$/, 'a Slack timestamp'),
    text: z.string().optional(),
    user: z.string().optional(),
    bot_id: z.string().optional(),
    subtype: z.string().optional(),
    thread_ts: z.string().optional(),
    /** App metadata of a message (asked for with include_all_metadata). */
    metadata: z
      .object({ event_type: z.string(), event_payload: z.record(z.string(), z.unknown()).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type SlackMessage = z.infer<typeof slackMessageSchema>;

const okSchema = z.object({ ok: z.boolean(), error: z.string().optional() }).loose();
const historySchema = z.object({
  ok: z.literal(true),
  messages: z.array(slackMessageSchema),
  has_more: z.boolean().optional(),
  response_metadata: z.object({ next_cursor: z.string().optional() }).loose().optional(),
});
const postSchema = z.object({ ok: z.literal(true), ts: z.string(), channel: z.string().optional() });

export interface HistoryRequest {
  channel: string;
  /** Only messages after this ts (exclusive). */
  oldest?: string;
  /** Only messages before this ts (exclusive). */
  latest?: string;
  /** A page cursor from the previous page. */
  cursor?: string;
  /** Messages per page; Slack caps it at 1,000 and recommends 200 or fewer. */
  limit: number;
}

export interface HistoryPage {
  /** Newest first, as Slack sends them. */
  messages: SlackMessage[];
  nextCursor?: string;
}

export interface SlackClientOptions {
  token: string;
  /** e.g. `https://slack.com/api`; tests point it at a loopback fake. */
  baseUrl: string;
  /** The runtime's HTTP client: retries, timeouts and request ids come from it. */
  http: HttpClient;
}

/**
 * The two Slack Web API methods slack-sync needs, over the runtime's HttpClient. HTTP
 * errors (429 with Retry-After, 5xx) are retried there and classified by the runtime;
 * an `ok: false` answer becomes a permanent or retryable error by its code.
 */
export class SlackClient {
  private readonly base: string;

  constructor(private readonly opts: SlackClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
  }

  /** One page of `conversations.history`, bounds exclusive. */
  async history(req: HistoryRequest, signal?: AbortSignal): Promise<HistoryPage> {
    const url = new URL(`${this.base}/conversations.history`);
    url.searchParams.set('channel', req.channel);
    url.searchParams.set('limit', String(req.limit));
    url.searchParams.set('inclusive', 'false');
    url.searchParams.set('include_all_metadata', 'true');
    if (req.oldest) url.searchParams.set('oldest', req.oldest);
    if (req.latest) url.searchParams.set('latest', req.latest);
    if (req.cursor) url.searchParams.set('cursor', req.cursor);
    const body = await this.call('conversations.history', url, { method: 'GET', signal });
    const page = parse(historySchema, body, 'conversations.history');
    const next = page.response_metadata?.next_cursor;
    return { messages: page.messages, nextCursor: page.has_more && next ? next : undefined };
  }

  /**
   * Posts a message. Tried once: Slack has no idempotency key, so a timed-out post
   * retried here could appear twice; the job's own retry guards it with its marker.
   */
  async postMessage(
    req: { channel: string; text: string; metadata?: { event_type: string; event_payload: Record<string, unknown> } },
    opts: { signal?: AbortSignal; idempotencyKey?: string } = {},
  ): Promise<{ ts: string }> {
    const body = await this.call('chat.postMessage', `${this.base}/chat.postMessage`, {
      method: 'POST',
      json: { channel: req.channel, text: req.text, ...(req.metadata ? { metadata: req.metadata } : {}) },
      signal: opts.signal,
      idempotencyKey: opts.idempotencyKey,
      policy: { maxAttempts: 1 },
    });
    return { ts: parse(postSchema, body, 'chat.postMessage').ts };
  }

  private async call(
    method: string,
    url: string | URL,
    req: { method: 'GET' | 'POST'; json?: unknown; signal?: AbortSignal; idempotencyKey?: string; policy?: { maxAttempts: number } },
  ): Promise<unknown> {
    const res = await this.opts.http.request<unknown>(url, {
      ...req,
      headers: { authorization: `Bearer ${this.opts.token}`, ...(req.json ? { 'content-type': 'application/json; charset=utf-8' } : {}) },
      operation: `slack ${method}`,
    });
    const body = res.json ?? safeJson(res.text);
    const status = okSchema.safeParse(body);
    if (!status.success) throw new Error(`Slack ${method} answered something that is not Slack JSON`);
    if (!status.data.ok) throw slackApiError(method, status.data.error ?? 'unknown_error');
    return body;
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown, method: string): T {
  const r = schema.safeParse(body);
  if (!r.success) throw new Error(`Slack ${method} answer not understood: ${z.prettifyError(r.error)}`);
  return r.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
