import { randomUUID } from 'node:crypto';
import { PermanentError } from '../errors/permanent-error';
import { silentLogger, type LogFields, type Logger } from '../logging/logger';
import type { RetryPolicy } from '../retry/retry-policy';
import { withRetry, type Sleep } from '../retry/with-retry';
import { HttpResponseError, redactUrl } from './http-response-error';
import type { HttpResponse } from './http-response';
import type { FetchDispatcher } from './pinned-agent';
import { parseRetryAfter } from './retry-after';
import { SSRF_REFUSED, SsrfGuard } from './ssrf-guard';

/** 1 MiB: enough for any JSON answer a worker acts on, small enough to never hurt memory. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Redirects followed for one request when the client follows them itself (fetch's own limit is 20). */
export const MAX_REDIRECTS = 5;

export interface HttpClientOptions {
  /** @defaultValue a silent logger */
  logger?: Logger;
  /** Every request's dispatcher, e.g. `SsrfGuard.dispatcher()` to pin DNS. @defaultValue Node's global one */
  dispatcher?: FetchDispatcher;
  /** Policy of every request unless a request overrides it. @defaultValue withRetry's default */
  policy?: Partial<RetryPolicy>;
  /**
   * Bytes of a response body kept; the rest is discarded and `truncated` set.
   * @defaultValue 1 MiB
   */
  maxBodyBytes?: number;
  /** @defaultValue `bullpen/0.1` */
  userAgent?: string;
  /**
   * Checks every target a request reaches, the first one and each redirect (e.g. `(url)
   * => guard.check(url)`); a throw ends the request with that error. Redirects are always
   * followed here, hop by hop, never by fetch: fetch connects to an IP-literal Location
   * without the dispatcher's lookup, so a pinned dispatcher alone would not see it.
   * @defaultValue the first target is the caller's and is not checked; a redirect to the
   * same origin is followed, and one to any other origin only when it resolves to public
   * addresses (`checkRedirectTarget`): a service that answers a 3xx cannot send the worker
   * to its own network.
   */
  checkTarget?: (url: URL) => Promise<unknown>;
  /** The fetch implementation; tests may pass one. @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
  /** Passed to withRetry (tests). */
  sleep?: Sleep;
  random?: () => number;
}

export interface HttpRequestOptions {
  /** @defaultValue `POST` when a body is given, else `GET` */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as is: the exact bytes, for callers that sign them. Wins over `json`. */
  body?: string | Uint8Array;
  /** The `x-request-id` header, the same on every attempt. @defaultValue a random UUID */
  requestId?: string;
  /** The `idempotency-key` header, when the receiver should deduplicate the effect. */
  idempotencyKey?: string;
  /** The caller's signal: combined with each attempt's time limit. */
  signal?: AbortSignal;
  /** Overrides of the client's policy for this request. */
  policy?: Partial<RetryPolicy>;
  /** Name in the logs. @defaultValue `http <METHOD> <host>` */
  operation?: string;
  /** @defaultValue the client's maxBodyBytes */
  maxBodyBytes?: number;
  /**
   * `manual` hands a 3xx back as an HttpError instead of following it; SSRF-guarded
   * callers need that, as a redirect may point anywhere.
   * @defaultValue `follow`
   */
  redirect?: 'follow' | 'manual' | 'error';
  dispatcher?: FetchDispatcher;
  logFields?: LogFields;
}

/**
 * A small JSON HTTP client on Node's fetch and withRetry: stable `x-request-id` and
 * `idempotency-key` headers across attempts, a time limit per attempt combined with the
 * caller's signal, bodies read with a size cap, and non-2xx answers thrown as
 * HttpResponseError (an HttpError carrying Retry-After) so withRetry and the job runtime
 * classify them.
 */
export class HttpClient {
  private readonly logger: Logger;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly opts: HttpClientOptions = {}) {
    this.logger = opts.logger ?? silentLogger;
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async request<T = unknown>(url: string | URL, req: HttpRequestOptions = {}): Promise<HttpResponse<T>> {
    const target = String(url);
    const body = req.body ?? (req.json !== undefined ? JSON.stringify(req.json) : undefined);
    const method = req.method ?? (body !== undefined ? 'POST' : 'GET');
    const requestId = req.requestId ?? randomUUID();
    const headers: Record<string, string> = {
      'user-agent': this.opts.userAgent ?? 'bullpen/0.1',
      accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
      ...(req.json !== undefined && req.body === undefined ? { 'content-type': 'application/json' } : {}),
      ...lowerCaseKeys(req.headers ?? {}),
      'x-request-id': requestId,
      ...(req.idempotencyKey ? { 'idempotency-key': req.idempotencyKey } : {}),
    };
    const maxBytes = req.maxBodyBytes ?? this.opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const dispatcher = req.dispatcher ?? this.opts.dispatcher;
    const operation = req.operation ?? `http ${method} ${hostOf(target)}`;
    let attempts = 0;

    return withRetry(
      operation,
      async ({ signal }) => {
        attempts++;
        const started = performance.now();
        const init = { method, headers, body, signal, redirect: req.redirect ?? 'follow', dispatcher } as RequestInit;
        const res = await this.sendChecked(target, init);
        const read = await readCapped(res, maxBytes);
        const response: HttpResponse<T> = {
          status: res.status,
          headers: Object.fromEntries(res.headers),
          text: read.text,
          json: read.truncated ? undefined : parseJson<T>(res.headers.get('content-type'), read.text),
          truncated: read.truncated,
          latencyMs: Math.round(performance.now() - started),
          attempts,
          requestId,
        };
        if (res.status < 200 || res.status > 299) {
          throw new HttpResponseError(response, method, target, parseRetryAfter(res.headers.get('retry-after'), Date.now()));
        }
        return response;
      },
      {
        policy: { ...this.opts.policy, ...req.policy },
        idempotencyKey: req.idempotencyKey,
        logFields: { requestId, url: redactUrl(target), ...req.logFields },
        logger: this.logger,
        signal: req.signal,
        sleep: this.opts.sleep,
        random: this.opts.random,
      },
    );
  }

  /**
   * fetch reports every connection failure as `TypeError: fetch failed` with the real
   * error as its cause; a refusal from the SSRF guard's lookup is unwrapped so it stays
   * permanent instead of looking like a network blip.
   */
  private async sendChecked(url: string, init: RequestInit): Promise<Response> {
    const follow = init.redirect === 'follow';
    const first = new URL(url);
    const check = this.opts.checkTarget ?? ((target: URL) => checkRedirectTarget(first, target));
    let target = first;
    let hop: RequestInit = { ...init, redirect: 'manual' };
    for (let hops = 0; ; hops++) {
      await check(target);
      const res = await this.send(target.href, hop);
      const location = res.headers.get('location');
      if (!follow || !REDIRECT_STATUSES.has(res.status) || !location) return res;
      await res.body?.cancel().catch(() => undefined);
      if (hops >= MAX_REDIRECTS) throw new PermanentError(`Request refused: more than ${MAX_REDIRECTS} redirects`, 'TOO_MANY_REDIRECTS');
      const next = new URL(location, target);
      hop = redirectedInit(hop, res.status, target, next);
      target = next;
    }
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchFn(url, init);
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof PermanentError) throw cause;
      throw err;
    }
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

let redirectGuard: SsrfGuard | undefined;

/**
 * The check of every target when the caller passed no `checkTarget`, failing closed: the
 * first target and any redirect on its origin pass (the caller chose that service); a
 * redirect to another origin must resolve to public addresses only, as a webhook target
 * must (lib/http/ssrf-guard.ts, with no allow-list). It is checked, not pinned: a caller
 * that needs pinning passes the guard's dispatcher and `checkTarget`, as webhook-dispatch does.
 */
export async function checkRedirectTarget(first: URL, target: URL): Promise<void> {
  if (target.origin === first.origin) return;
  redirectGuard ??= new SsrfGuard();
  try {
    await redirectGuard.check(target);
  } catch (err) {
    if (!(err instanceof PermanentError)) throw err;
    throw new PermanentError(
      `Request refused: ${first.host} redirected to ${target.host}, which is not a public http(s) address; ` +
        'a redirect to another origin must reach a public address unless the caller passes checkTarget',
      SSRF_REFUSED,
    );
  }
}

/**
 * The next hop's request as fetch would make it: 303 (and 301/302 after a POST) turn
 * into a GET without a body; credentials are not carried to another origin.
 */
function redirectedInit(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const headers = { ...(init.headers as Record<string, string>) };
  if (from.origin !== to.origin) {
    delete headers.authorization;
    delete headers.cookie;
  }
  const toGet = status === 303 || ((status === 301 || status === 302) && init.method === 'POST');
  if (!toGet) return { ...init, headers };
  delete headers['content-type'];
  return { ...init, headers, method: 'GET', body: undefined };
}

/** Reads at most `maxBytes` of the body, then cancels the rest of the stream. */
async function readCapped(res: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated };
}

function parseJson<T>(contentType: string | null, text: string): T | undefined {
  if (!text || !/\bjson\b/i.test(contentType ?? '')) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
