import Link from 'next/link';
import { RelativeTime } from '@/components/ui/relative-time';
import type { LastReplay } from '@/dashboard/client/read-models';
import { jobPageHref } from '@/dashboard/client/schedules-view';

const OUTCOME: Record<LastReplay['outcome'], { tone: string; words: string }> = {
  failed: { tone: 'error', words: 'failed' },
  completed: { tone: 'ok', words: 'completed' },
  running: { tone: 'info', words: 'is running' },
  waiting: { tone: 'info', words: 'is waiting to run' },
  gone: { tone: 'info', words: 'is no longer in the queue' },
  unknown: { tone: 'info', words: 'ended; its outcome is being recorded' },
};

/**
 * What became of the newest replay, said first on the entry page: a replay that failed
 * (the record is pending again because of it) with its error, or one still running.
 * Read from the record on every render, so it never disagrees with the status beside it.
 */
export function LastReplayNote({ queue, last }: { queue: string; last: LastReplay }) {
  const { tone, words } = OUTCOME[last.outcome];
  return (
    <div className={`result ${tone}`} role="status" data-testid="dlq-last-replay-status" data-outcome={last.outcome}>
      <p style={{ margin: 0 }}>
        <strong>
          Replay {last.n}
          {last.edited ? ' (edited payload)' : ''} {words}
        </strong>
        {': '}
        <Link href={jobPageHref(queue, last.newJobId)} className="mono" data-testid="dlq-last-replay-status-job">
          {last.newJobId}
        </Link>
        , by {last.by} <RelativeTime ms={last.at} />.
      </p>
      {last.failure && (
        <p style={{ margin: '0.25rem 0 0' }} data-testid="dlq-last-replay-status-error">
          {last.failure.code ? <span className="mono">{last.failure.code}: </span> : null}
          {last.failure.message}
          <br />
          <span className="small">
            The dead letter is pending again; the payload below is the one that replay sent. Fix it and replay, or discard.
          </span>
        </p>
      )}
    </div>
  );
}
