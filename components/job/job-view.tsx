'use client';

import { useLiveQuery } from '@/components/live/use-live-query';
import Link from 'next/link';
import { useQueryClient } from '@tanstack/react-query';
import type { JobPage } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { LiveStatus } from '@/components/live/live-status';
import { StatusPill } from '@/components/ui/badge';
import { JsonView } from '@/components/ui/json-view';
import { ProgressBar } from '@/components/ui/progress-bar';
import { retryMarkSentence } from '@/dashboard/client/retry-mark';
import { JobActionBar } from './job-actions';
import { RetryMarkBadge } from './retry-mark-badge';
import { JobAttempts } from './job-attempts';
import { JobFacts } from './job-facts';
import { JobFlowTree } from './job-flow';
import { JobLogs } from './job-logs';
import type { JobActions } from './types';

export interface JobViewProps {
  initial: JobPage;
  logsPage: number;
  canOperate: boolean;
  canAdmin: boolean;
  actions: JobActions;
}

/** The live job page: progress and state refresh every 3 s (every 10 s once finished). */
export function JobView({ initial, logsPage, canOperate, canAdmin, actions }: JobViewProps) {
  const { queue, id } = initial.job;
  const qc = useQueryClient();
  const { data, error, dataUpdatedAt, isFetching } = useLiveQuery<JobPage>(liveUrls.job(queue, id, logsPage), {
    queryKey: queryKeys.job(queue, id, logsPage),
    initialData: initial,
    refetchInterval: (q) => (q.state.data?.job.state === 'completed' || q.state.data?.job.state === 'failed' ? 10_000 : 3_000),
  });
  const job = data.job;
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <div className="row">
          <StatusPill status={job.state ?? 'unknown'} testId="job-state" />
          {job.priorityName && <span className="badge tone-neutral">priority {job.priorityName}</span>}
          {job.tenant && (
            <span className="badge tone-info">
              org {job.tenant.orgId}
              {job.tenant.workspaceId ? ` / ${job.tenant.workspaceId}` : ''}
            </span>
          )}
        </div>
        <LiveStatus updatedAt={dataUpdatedAt} error={error} fetching={isFetching} />
      </div>
      <section className="card" aria-labelledby="progress-h">
        <h2 id="progress-h">Progress</h2>
        {job.state === 'failed' && job.cancelledBy ? (
          <p data-testid="job-final" data-state="cancelled">
            Cancelled by <strong data-testid="job-cancelled-by">{job.cancelledBy}</strong>
            {job.finishedAt ? ` at ${new Date(job.finishedAt).toISOString().slice(11, 19)} UTC` : ''}
            {`, during attempt ${job.attemptsMade}; not retried.`}
          </p>
        ) : job.state === 'failed' ? (
          // A failed job shows how it ended, not the progress it last reported.
          <p data-testid="job-final" data-state="failed">
            Failed for good after {job.attemptsMade} {job.attemptsMade === 1 ? 'attempt' : 'attempts'}
            {job.progress.phase ? ` (last phase: ${job.progress.phase})` : ''}.
          </p>
        ) : (
          <>
            <ProgressBar value={job.progress.percent} label={job.progress.phase} testId="job-progress" />
            <p className="small" style={{ margin: '0.25rem 0 0' }}>
              Phase: <strong data-testid="job-phase">{job.progress.phase ?? '—'}</strong>
            </p>
          </>
        )}
        {job.state === 'completed' && job.outcome && (
          // The job's own summary: "completed" alone would hide failed batches or refused items.
          <p
            className={job.outcome.partial ? 'result info' : 'small'}
            style={{ margin: '0.5rem 0 0' }}
            data-testid="job-outcome"
            data-partial={job.outcome.partial}
          >
            {job.outcome.partial ? (
              <>
                <strong>Completed, but part of the work failed:</strong> {job.outcome.text}.
              </>
            ) : (
              <>Completed: {job.outcome.text}.</>
            )}
          </p>
        )}
        {data.deadLetter && (
          <p className="small" style={{ margin: '0.25rem 0 0' }}>
            Dead letter:{' '}
            <Link href={`/dead-letters/${encodeURIComponent(data.deadLetter.id)}`} className="mono" data-testid="job-dead-letter-link">
              {data.deadLetter.id}
            </Link>{' '}
            <StatusPill status={data.deadLetter.status} />
          </p>
        )}
        {data.retryRefused && (
          <p className="small" style={{ margin: '0.25rem 0 0' }} data-testid="job-retry-refused" data-why={data.retryRefused.why}>
            <RetryMarkBadge mark={data.retryRefused} queue={queue} testId="job-retry-mark" /> No retry from here:{' '}
            {retryMarkSentence(data.retryRefused)}
          </p>
        )}
        {job.progress.detail && <JsonView value={job.progress.detail} testId="job-progress-detail" label="Progress detail (JSON)" />}
      </section>
      <JobActionBar
        job={job}
        retryRefused={data.retryRefused}
        confirmation={data.confirmation}
        actions={actions}
        canOperate={canOperate}
        canAdmin={canAdmin}
        onChanged={() => void qc.invalidateQueries({ queryKey: queryKeys.jobAll(queue, id) })}
      />
      <div className="grid">
        <JobFacts job={job} />
        <section className="card" aria-labelledby="data-h">
          <h2 id="data-h">Payload</h2>
          <JsonView
            value={job.payload.value}
            truncated={job.payload.truncated}
            originalBytes={job.payload.bytes}
            testId="job-data"
            label="Payload (JSON)"
          />
        </section>
      </div>
      {data.flow && <JobFlowTree queue={queue} id={id} flow={data.flow} />}
      <JobAttempts job={job} attempts={data.attempts} />
      <div className="grid">
        <section className="card" aria-labelledby="rv-h">
          <h2 id="rv-h">Return value</h2>
          {job.returnValue.value === null ? (
            <p className="muted" data-testid="job-return-value">
              {job.state === 'completed' || job.state === 'failed' ? 'None.' : 'None yet.'}
            </p>
          ) : (
            <JsonView
              value={job.returnValue.value}
              truncated={job.returnValue.truncated}
              originalBytes={job.returnValue.bytes}
              testId="job-return-value"
              label="Return value (JSON)"
            />
          )}
        </section>
        <section className="card" aria-labelledby="opts-h">
          <h2 id="opts-h">Options</h2>
          <JsonView value={job.options.value} truncated={job.options.truncated} testId="job-options" label="Options (JSON)" />
        </section>
      </div>
      <JobLogs logs={data.logs} queue={queue} id={id} />
    </div>
  );
}
