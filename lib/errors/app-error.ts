/**
 * One error type for everything Bullpen refuses, with a typed code that maps to an
 * HTTP status, so the dashboard, the CLI and the API answer the same way.
 */
export const ERROR_STATUS = {
  VALIDATION: 400,
  UNKNOWN_JOB_TYPE: 400,
  NO_HANDLER: 400,
  INVALID_SCHEDULE: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  /** Redis did not answer within the caller's bound; retryable (docs/producers.md, "During a Redis outage"). */
  REDIS_UNAVAILABLE: 503,
  /** A write was sent but not confirmed within its bound: it may still be applied; check before repeating it. */
  OUTCOME_UNKNOWN: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * An AppError, also one made by another copy of this module: a bundler may put the class
 * in two chunks of one server (Next does when two routes share a module differently),
 * and `instanceof` would then turn a refusal with its reason into an INTERNAL error.
 */
export function isAppError(err: unknown): err is AppError {
  if (err instanceof AppError) return true;
  if (!(err instanceof Error) || err.name !== 'AppError') return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}
