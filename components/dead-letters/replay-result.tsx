import Link from 'next/link';
import { ErrorResult } from '@/components/ui/inline-result';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { ReplayResult } from '@/dashboard/client/read-models';
import { jobPageHref } from '@/dashboard/client/schedules-view';

/**
 * A replay's result as it turned out, not as it was asked for: the replayed job's first
 * outcome within the action's wait. A replay whose job failed at once (an idempotency
 * conflict, a disabled webhook) or on its first attempt is shown as a failure, with its
 * error and what to do; only a completed job is shown as a success.
 */
export function ReplayResultView({
  result,
  queue,
  linkTestId,
}: {
  result: ActionResult<ReplayResult> | null;
  queue: string;
  linkTestId: string;
}) {
  if (!result) return null;
  if (!result.ok) return <ErrorResult result={result} />;
  const { jobId, edited, outcome } = result.data;
  const job = (
    <Link href={jobPageHref(queue, jobId)} className="mono" data-testid={linkTestId}>
      {jobId}
    </Link>
  );
  const what = `Replayed${edited ? ' with the edited payload' : ''} as`;
  switch (outcome.state) {
    case 'completed':
      return (
        <p className="result ok" role="status" data-testid="action-result" data-ok="true" data-outcome="completed">
          {what} {job}: completed.
        </p>
      );
    case 'waiting':
      return (
        <p className="result info" role="status" data-testid="action-result" data-ok="true" data-outcome="waiting">
          {what} {job}. It is {outcome.jobState === 'active' ? 'running' : 'waiting for a worker'} and has not finished yet: follow it on
          its job page.
        </p>
      );
    case 'retrying':
      return (
        <p className="result error" role="alert" data-testid="action-result" data-ok="false" data-outcome="retrying">
          {what} {job}, but its first attempt failed ({outcome.attemptsMade} of {outcome.attempts}): {outcome.error.message}.{' '}
          {outcome.error.advice}
        </p>
      );
    case 'failed':
      return (
        <p className="result error" role="alert" data-testid="action-result" data-ok="false" data-outcome="failed">
          The replay failed at once: {job} {outcome.error.code ? <span className="mono">{outcome.error.code}</span> : null}{' '}
          {outcome.error.message}. The dead letter is pending again. {outcome.error.advice}
        </p>
      );
  }
}
