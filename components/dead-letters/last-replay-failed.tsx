import Link from 'next/link';
import { RelativeTime } from '@/components/ui/relative-time';
import type { DeadLetterDetail } from '@/dashboard/client/read-models';
import { jobPageHref } from '@/dashboard/client/schedules-view';

/**
 * First on a dead letter whose last replay failed for good: which job, when, its error,
 * and what to do. Without it the page shows "pending" beside a replay history that reads
 * like a success.
 */
export function LastReplayFailed({ queue, failure }: { queue: string; failure: NonNullable<DeadLetterDetail['lastReplayFailed']> }) {
  return (
    <section className="result error stack" role="alert" aria-labelledby="dlq-last-replay-h" data-testid="dlq-last-replay-failed">
      <h2 id="dlq-last-replay-h" style={{ margin: 0 }}>
        The last replay failed
      </h2>
      <p style={{ margin: 0 }}>
        {failure.edited ? 'The replay with the edited payload, ' : 'The replay '}
        <Link href={jobPageHref(queue, failure.jobId)} className="mono" data-testid="dlq-last-replay-job">
          {failure.jobId}
        </Link>
        , failed <RelativeTime ms={failure.at} />
        {failure.error.code ? (
          <>
            {' '}
            with <span className="mono">{failure.error.code}</span>
          </>
        ) : null}
        : <span data-testid="dlq-last-replay-error">{failure.error.message}</span>
      </p>
      <p style={{ margin: 0 }}>{failure.advice}</p>
    </section>
  );
}
