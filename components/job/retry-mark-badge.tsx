import Link from 'next/link';
import { type RetryMark, retryMarkSentence, retryMarkWords } from '@/dashboard/client/retry-mark';
import { jobPageHref } from '@/dashboard/client/schedules-view';

/**
 * The mark of a failed job whose Retry would be refused: "replayed as <job>" (a link to
 * that job), "being replayed" or "discarded" (a link to the dead letter). Shown in
 * place of a Retry button, so the operator learns it before pressing anything.
 */
export function RetryMarkBadge({ mark, queue, testId = 'retry-mark' }: { mark: RetryMark; queue: string; testId?: string }) {
  return (
    <span
      className="badge tone-violet"
      title={retryMarkSentence(mark)}
      data-testid={testId}
      data-why={mark.why}
      data-replayed-as={mark.replayedAs}
    >
      {retryMarkWords(mark)}{' '}
      {mark.replayedAs ? (
        <Link href={jobPageHref(queue, mark.replayedAs)} className="mono" data-testid={`${testId}-job`}>
          {mark.replayedAs}
        </Link>
      ) : (
        <Link href={`/dead-letters/${encodeURIComponent(mark.deadLetterId)}`} data-testid={`${testId}-dead-letter`}>
          (dead letter)
        </Link>
      )}
    </span>
  );
}
