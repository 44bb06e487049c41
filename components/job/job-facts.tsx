import Link from 'next/link';
import type { JobDetail } from '@/dashboard/client/read-models';
import { RelativeTime } from '@/components/ui/relative-time';

const at = (ms?: number) => (ms ? <RelativeTime ms={ms} /> : <span className="muted">—</span>);

/** Envelope fields, attempts and timestamps. */
export function JobFacts({ job }: { job: JobDetail }) {
  return (
    <section className="card" aria-labelledby="facts-h">
      <h2 id="facts-h">Details</h2>
      <dl className="dl" data-testid="job-facts">
        <dt>Name</dt>
        <dd>{job.name}</dd>
        <dt>Tenant</dt>
        <dd className="mono">{job.tenant ? `${job.tenant.orgId}${job.tenant.workspaceId ? ` / ${job.tenant.workspaceId}` : ''}` : '—'}</dd>
        <dt>Request id</dt>
        <dd className="mono">{job.envelope.requestId ?? '—'}</dd>
        <dt>Idempotency key</dt>
        <dd className="mono">{job.envelope.idempotencyKey ?? '—'}</dd>
        {job.replayOf && (
          <>
            <dt>Replay of</dt>
            <dd className="mono">
              <Link href={`/dead-letters/${encodeURIComponent(job.replayOf)}`}>{job.replayOf}</Link>
            </dd>
          </>
        )}
        {job.schedule && (
          <>
            <dt>Schedule</dt>
            <dd>
              <Link href="/schedules">{job.schedule}</Link>
            </dd>
          </>
        )}
        <dt>Priority</dt>
        <dd>
          {job.priorityName ?? 'none'} <span className="muted">({job.priority})</span>
        </dd>
        <dt>Attempts</dt>
        <dd data-testid="job-attempts">
          {job.attemptsMade} made of {job.maxAttempts} (started {job.attemptsStarted}
          {job.stalledCount ? `, stalled ${job.stalledCount}` : ''})
        </dd>
        <dt>Created</dt>
        <dd>{at(job.createdAt)}</dd>
        {job.runAt && (
          <>
            <dt>Due</dt>
            <dd>{at(job.runAt)}</dd>
          </>
        )}
        <dt>Started</dt>
        <dd>{at(job.processedAt)}</dd>
        <dt>Finished</dt>
        <dd>{at(job.finishedAt)}</dd>
        {job.processedAt && job.finishedAt && (
          <>
            <dt>Duration</dt>
            <dd>{((job.finishedAt - job.processedAt) / 1000).toFixed(2)} s</dd>
          </>
        )}
        {job.processedBy && (
          <>
            <dt>Worker</dt>
            <dd className="mono">{job.processedBy}</dd>
          </>
        )}
        {job.deduplicationId && (
          <>
            <dt>Deduplication id</dt>
            <dd className="mono">{job.deduplicationId}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
