/**
 * Another worker holds the idempotency key and its lock has not expired. Retrying
 * later is right: by then it has completed (and the stored outcome is returned) or its
 * lock has lapsed (and the work may be taken over). The job runtime retries it as an
 * error of unknown class.
 */
export class IdempotencyInProgressError extends Error {
  readonly code = 'IDEMPOTENCY_IN_PROGRESS';
  constructor(
    readonly key: string,
    readonly lockExpiresAt: number,
  ) {
    super(`The operation for idempotency key "${key}" is in progress elsewhere (lock until ${new Date(lockExpiresAt).toISOString()})`);
    this.name = 'IdempotencyInProgressError';
  }
}
