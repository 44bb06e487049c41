import type { CheckOutcome } from './check-outcome';
import { deadLetterStatus } from './health-rules';

/** Pending dead letters (status pending) against the alert threshold. */
export async function checkDeadLetters(pendingCount: () => Promise<number>, threshold: number): Promise<CheckOutcome> {
  const pending = await pendingCount();
  if (!Number.isInteger(pending) || pending < 0) {
    throw new Error('the dead-letter count source returned something other than a count');
  }
  return { status: deadLetterStatus(pending, threshold), details: { pending, threshold } };
}
