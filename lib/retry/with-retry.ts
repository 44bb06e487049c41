import { classifyError, type Classification } from '../errors/classify';
import { HttpError } from '../errors/http-error';
import { TimeoutError } from '../errors/timeout-error';
import { silentLogger, type LogFields, type Logger } from '../logging/logger';
import { resolvePolicy, retryDelay, shouldRetry, type RetryPolicy } from './retry-policy';

export interface AttemptContext {
  /** Aborted at the attempt's time limit or when the caller's signal aborts: pass it to every I/O call. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
}

export type Sleep = (ms: number, signal: AbortSignal | undefined) => Promise<void>;

export interface WithRetryOptions {
  /** Overrides of the default policy (3 attempts, 250 ms base, 5 s cap, 10 s per attempt, jitter). */
  policy?: Partial<RetryPolicy>;
  /** Logged with every attempt, so the log ties the attempts of one effect together. */
  idempotencyKey?: string;
  /**
   * Sorts an error; the call retries only when the result is retryable and of class
   * network, timeout, rate_limit or server (see `shouldRetry`).
   * @defaultValue classifyError
   */
  classify?: (err: unknown) => Classification;
  /** Extra structured fields for every attempt's log line (requestId, jobId, ...). */
  logFields?: LogFields;
  /** @defaultValue a silent logger */
  logger?: Logger;
  /** The caller's signal: its abort stops at once, without another attempt. */
  signal?: AbortSignal;
  /** Waits between attempts; tests pass one that records instead. @defaultValue an abortable timer */
  sleep?: Sleep;
  /** Random source of the jitter, in [0, 1). @defaultValue Math.random */
  random?: () => number;
}

/**
 * Runs `fn` until it succeeds, a non-retryable error occurs, or the attempts run out,
 * waiting a full-jitter delay between attempts. Each attempt gets its own signal, which
 * aborts with a TimeoutError at `policy.timeoutMs`; an attempt that ignores its signal
 * is abandoned at that moment all the same. The last error is thrown as it was, so the
 * caller can classify it again.
 */
export async function withRetry<T>(
  operation: string,
  fn: (attempt: AttemptContext) => Promise<T>,
  opts: WithRetryOptions = {},
): Promise<T> {
  const policy = resolvePolicy(opts.policy);
  const classify = opts.classify ?? classifyError;
  const logger = opts.logger ?? silentLogger;
  const sleep = opts.sleep ?? abortableSleep;
  const outer = opts.signal;

  for (let attempt = 1; ; attempt++) {
    throwIfAborted(outer);
    const started = performance.now();
    const fields: LogFields = {
      ...opts.logFields,
      operation,
      attempt,
      maxAttempts: policy.maxAttempts,
      idempotencyKey: opts.idempotencyKey,
    };
    try {
      const result = await runAttempt(fn, attempt, policy.timeoutMs, operation, outer);
      logger.debug({ ...fields, latencyMs: elapsed(started), retryable: false }, `${operation} attempt succeeded`);
      return result;
    } catch (err) {
      // The caller gave up: neither a retry nor a misleading "timeout" classification.
      if (outer?.aborted) {
        logger.warn({ ...fields, latencyMs: elapsed(started), retryable: false }, `${operation} aborted by the caller`);
        throw outer.reason ?? err;
      }
      const c = classify(err);
      const retry = shouldRetry(c) && attempt < policy.maxAttempts;
      logger[retry ? 'warn' : 'error'](
        {
          ...fields,
          err,
          latencyMs: elapsed(started),
          httpStatus: c.httpStatus,
          errorClass: c.errorClass,
          retryable: shouldRetry(c),
        },
        retry ? `${operation} attempt failed, will retry` : `${operation} failed`,
      );
      if (!retry) throw err;
      const retryAfterMs = err instanceof HttpError ? err.retryAfterMs : undefined;
      await sleep(retryDelay(policy, attempt, retryAfterMs, opts.random), outer);
    }
  }
}

/** One attempt: its own timeout, combined with the caller's signal, enforced even on an fn that ignores it. */
async function runAttempt<T>(
  fn: (attempt: AttemptContext) => Promise<T>,
  attempt: number,
  timeoutMs: number,
  operation: string,
  outer: AbortSignal | undefined,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError(timeoutMs, `${operation} attempt`)), timeoutMs);
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const signal = controller.signal;
  try {
    return await new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() => fn({ signal, attempt }))
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** A timer that rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
