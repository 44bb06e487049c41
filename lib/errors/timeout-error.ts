/** An attempt ran past its time limit; the runtime aborted its signal with this. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly timeoutMs: number,
    what = 'attempt',
  ) {
    super(`${what} timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}
