import { HttpError } from '../errors/http-error';
import type { HttpResponse } from './http-response';

/**
 * A non-2xx answer from HttpClient. Still an HttpError (so classification and
 * Retry-After work everywhere), with the response attached for callers that record it,
 * such as a webhook delivery log.
 */
export class HttpResponseError extends HttpError {
  constructor(
    readonly response: HttpResponse,
    readonly method: string,
    readonly url: string,
    retryAfterMs?: number,
  ) {
    super(response.status, `${method} ${redactUrl(url)} answered HTTP ${response.status}`, retryAfterMs);
    this.name = 'HttpResponseError';
  }
}

/** The URL without credentials, query or fragment: those may hold secrets and must not reach logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
