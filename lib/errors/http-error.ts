/** A non-2xx HTTP answer. `retryAfterMs` carries a server's Retry-After when it gave one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
