import type { AttemptEntry, AttemptRecord } from '@/lib/runtime/attempt-record';
import { formatDurationMs } from './health-view';

export type { AttemptEntry, AttemptRecord };

/** How an attempt ended, in words: what the timeline says after its outcome. */
export function attemptSentence(e: AttemptEntry): string {
  switch (e.outcome) {
    case 'completed':
      return 'Completed.';
    case 'failed':
      return 'Failed for good: no attempt after this one.';
    case 'stalled':
      return 'Lost: its worker stopped renewing the lock, and the stalled check put the job back to run again.';
    case 'retried':
      return e.backoffMs ? `Retried after a backoff of ${formatDurationMs(e.backoffMs)}.` : 'Retried at once.';
  }
}

/** An instant as the timeline writes it: UTC time of day to the millisecond. */
export function attemptClock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 23)} UTC`;
}
