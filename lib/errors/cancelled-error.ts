/**
 * An operator cancelled the running attempt (lib/runtime/cancel-relay.ts): the runtime
 * aborted the handler's signal with this. The job fails for good, with no retry and no
 * critical alert, and gets a dead letter only when its type asks for one
 * (`deadLetterOnCancel` in the job table).
 */
export class CancelledError extends Error {
  readonly code = 'CANCELLED';
  constructor(readonly by: string) {
    super(`${CANCELLED_PREFIX}${by}`);
    this.name = 'CancelledError';
  }
}

/** How a cancelled job's failedReason starts; what follows is who cancelled it. */
const CANCELLED_PREFIX = 'Cancelled by ';

/**
 * Who cancelled a failed job, read from what BullMQ kept of its last failure: its
 * failedReason and the stack the runtime stored with it, whose first line names the
 * error. Both must say so, so a handler's own message that happens to read "Cancelled
 * by …" is not taken for an operator's cancel.
 */
export function cancelledBy(job: { failedReason?: string; stacktrace?: readonly string[] | null }): string | undefined {
  const reason = job.failedReason;
  if (!reason?.startsWith(CANCELLED_PREFIX)) return undefined;
  const stack = job.stacktrace?.[job.stacktrace.length - 1];
  if (!stack?.startsWith(`CancelledError: ${reason}`)) return undefined;
  return reason.slice(CANCELLED_PREFIX.length);
}
