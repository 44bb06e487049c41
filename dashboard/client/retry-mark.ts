import { z } from 'zod';
import type { RetryVerdict } from '@/lib/dlq/retry-verdict';

/**
 * Why a failed job shows no Retry: its failure was replayed (as `replayedAs`), is being
 * replayed, was discarded, or ran again as a later job (`superseded`). Client-safe: the
 * failed tab and the job page say it before anyone presses anything.
 */
export const retryMarkSchema = z.object({
  why: z.enum(['replayed', 'replaying', 'discarded', 'superseded']),
  deadLetterId: z.string(),
  replayedAs: z.string().optional(),
});
export type RetryMark = z.infer<typeof retryMarkSchema>;

/** The mark of a refused verdict; none when the job would be retried. */
export function retryMarkOf(verdict: RetryVerdict): RetryMark | undefined {
  if (verdict.retry) return undefined;
  return { why: verdict.why, deadLetterId: verdict.deadLetterId, ...(verdict.replayedAs ? { replayedAs: verdict.replayedAs } : {}) };
}

/** The mark in words, without the job it names (the UI links that): "replayed as", "discarded", ... */
export function retryMarkWords(mark: RetryMark): string {
  switch (mark.why) {
    case 'discarded':
      return 'discarded';
    case 'replaying':
      return 'being replayed';
    default:
      return mark.replayedAs ? 'replayed as' : 'already retried';
  }
}

/** A sentence for the job page and the row's tooltip: what happened and where to act instead. */
export function retryMarkSentence(mark: RetryMark): string {
  switch (mark.why) {
    case 'discarded':
      return 'Its dead letter was discarded, so it is not retried from here; replay it from the dead letter to run it again.';
    case 'replaying':
      return 'Its dead letter is being replayed right now.';
    case 'superseded':
      return `Its failure was replayed${mark.replayedAs ? ` as ${mark.replayedAs}` : ''}, which failed since; act on the dead letter, not on this older run and its stale data.`;
    default:
      return `Its failure was already ${mark.replayedAs ? `replayed as ${mark.replayedAs}` : 'retried'}; running it again would repeat it with the old data.`;
  }
}
