import { z } from 'zod';

/** A dead letter's states (docs/dead-letters.md); client-safe, like everything in this module. */
export const DEAD_LETTER_STATUSES = ['pending', 'replaying', 'replayed', 'discarded'] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

/**
 * A dead letter's id: `dlq-` and the first 24 hex digits of sha256(queue, job id), so
 * the same failed job always has the same id (lib/dlq/entry.ts makes it). The one
 * definition of the pattern; pure zod, safe in any bundle (the client's filter form
 * reads the statuses here rather than from entry.ts, which needs node:crypto).
 */
export const DEAD_LETTER_ID = /^dlq-[0-9a-f]{24}$/;

export const deadLetterIdSchema = z.string().regex(DEAD_LETTER_ID, 'a dead-letter id such as dlq-0123456789abcdef01234567');

export function isDeadLetterId(value: string): boolean {
  return DEAD_LETTER_ID.test(value);
}
