import { ZodError } from 'zod';
import { isAppError } from './app-error';
import { HttpError } from './http-error';
import { CancelledError } from './cancelled-error';
import { PermanentError } from './permanent-error';
import { TimeoutError } from './timeout-error';

/** Error classes as the DLQ stores and filters them. */
export const ERROR_CLASSES = [
  'network',
  'timeout',
  'rate_limit',
  'server',
  'client',
  'conflict',
  'validation',
  'permanent',
  'cancelled',
  'unknown',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export interface Classification {
  errorClass: ErrorClass;
  /** Whether another attempt may succeed. */
  retryable: boolean;
  /** The HTTP status, when the error was an HTTP answer. */
  httpStatus?: number;
  code?: string;
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ABORT_ERR']);
/**
 * Redis going away or coming back, as ioredis and Redis say it. Always transient
 * (docs/decisions/0006-connection-roles.md): a restart, a failover or a node loading
 * its AOF is over in seconds, and a job must never be dead-lettered for it.
 */
const REDIS_UNAVAILABLE_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const REDIS_UNAVAILABLE_MESSAGE =
  /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit|Failed to refresh slots cache|None of startup nodes is available|Redis not ready after|Redis connection closed before it was ready|Command timed out|Too many Cluster redirections)|^(LOADING|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK) /;

/** Whether `err` says Redis is unreachable or not serving right now. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.name === 'string' && REDIS_UNAVAILABLE_NAMES.has(e.name)) return true;
  return typeof e.message === 'string' && REDIS_UNAVAILABLE_MESSAGE.test(e.message);
}

/** The retry design: retry on 408, 425, 429 and these 5xx. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (e && typeof e.code === 'string') return e.code;
  if (e?.cause && typeof e.cause.code === 'string') return e.cause.code;
  return undefined;
}

/**
 * Sorts an error into retryable or permanent (docs/decisions/0002-full-jitter-backoff.md):
 * network errors, timeouts and aborts, 408/425/429 and 5xx retry; validation errors,
 * other 4xx and explicit permanent errors do not. 409 is a conflict: permanent, and a
 * caller doing create-if-absent may read it as "already done". An error we know
 * nothing about retries, since the job's attempt limit still bounds it.
 */
export function classifyError(err: unknown): Classification {
  const code = errorCode(err);
  const name = (err as { name?: string } | null)?.name;

  // An operator's cancel: never retried, whatever the handler was doing when it stopped.
  if (err instanceof CancelledError || name === 'CancelledError') return { errorClass: 'cancelled', retryable: false, code: 'CANCELLED' };
  if (isAppError(err)) {
    // Bullpen's own refusals: bad input stays bad; only "try later" codes retry.
    if (err.code === 'RATE_LIMITED') return { errorClass: 'rate_limit', retryable: true, code: err.code };
    if (err.code === 'UNAVAILABLE' || err.code === 'REDIS_UNAVAILABLE') return { errorClass: 'network', retryable: true, code: err.code };
    // Inside Bullpen a conflict is contention (a lock held, a record moving): try later.
    if (err.code === 'CONFLICT') return { errorClass: 'conflict', retryable: true, code: err.code };
    if (err.code === 'VALIDATION' || err.code === 'INVALID_SCHEDULE' || err.code === 'PAYLOAD_TOO_LARGE')
      return { errorClass: 'validation', retryable: false, code: err.code };
    return { errorClass: 'permanent', retryable: false, code: err.code };
  }
  if (err instanceof ZodError || name === 'ZodError') {
    return { errorClass: 'validation', retryable: false, code };
  }
  if (err instanceof HttpError) {
    const s = err.status;
    if (s === 429) return { errorClass: 'rate_limit', retryable: true, httpStatus: s };
    if (s === 408) return { errorClass: 'timeout', retryable: true, httpStatus: s };
    if (RETRYABLE_STATUS.has(s)) return { errorClass: 'server', retryable: true, httpStatus: s };
    if (s >= 500) return { errorClass: 'server', retryable: true, httpStatus: s };
    if (s === 409) return { errorClass: 'conflict', retryable: false, httpStatus: s };
    return { errorClass: 'client', retryable: false, httpStatus: s };
  }
  if (err instanceof PermanentError || name === 'UnrecoverableError' || name === 'PermanentError') {
    return { errorClass: 'permanent', retryable: false, code };
  }
  if (err instanceof TimeoutError || name === 'TimeoutError' || name === 'AbortError') {
    return { errorClass: 'timeout', retryable: true, code: code ?? 'ETIMEDOUT' };
  }
  if (isRedisUnavailable(err)) return { errorClass: 'network', retryable: true, code: code ?? 'REDIS_UNAVAILABLE' };
  if (code && TIMEOUT_CODES.has(code)) return { errorClass: 'timeout', retryable: true, code };
  if (code && NETWORK_CODES.has(code)) return { errorClass: 'network', retryable: true, code };
  if (name === 'FetchError' || (err instanceof TypeError && /fetch failed/i.test(err.message))) {
    return { errorClass: 'network', retryable: true, code };
  }
  return { errorClass: 'unknown', retryable: true, code };
}
