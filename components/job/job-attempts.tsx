import type { JobDetail } from '@/dashboard/client/read-models';
import { type AttemptRecord, attemptClock, attemptSentence } from '@/dashboard/client/attempt-timeline';
import { formatDurationMs } from '@/dashboard/client/health-view';
import { Badge, type Tone } from '@/components/ui/badge';

/** A retried attempt failed too: never the green of a completed one. */
const OUTCOME_TONE: Record<AttemptRecord['entries'][number]['outcome'], Tone> = {
  completed: 'ok',
  retried: 'warn',
  failed: 'danger',
  stalled: 'warn',
};

/**
 * The job's attempts as a timeline (each one's times, worker, outcome, error and backoff,
 * from the runtime's record), then the last error and every failed attempt's stack trace
 * (BullMQ keeps one per attempt).
 */
export function JobAttempts({ job, attempts }: { job: JobDetail; attempts: AttemptRecord }) {
  return (
    <>
      <AttemptTimeline job={job} attempts={attempts} />
      <JobErrors job={job} />
    </>
  );
}

function AttemptTimeline({ job, attempts }: { job: JobDetail; attempts: AttemptRecord }) {
  const { entries, dropped } = attempts;
  return (
    <section className="card" aria-labelledby="attempts-h" id="attempts" data-testid="job-attempt-timeline">
      <h2 id="attempts-h">Attempts</h2>
      {entries.length === 0 ? (
        <p className="muted" data-testid="job-attempts-none">
          {job.attemptsStarted > 0
            ? 'No attempt recorded: the worker that ran it records none (BULLPEN_ATTEMPT_RECORD=0), or the attempt is still running.'
            : 'No attempt yet.'}
        </p>
      ) : (
        <ol className="stack" style={{ paddingLeft: '1.25rem', margin: 0 }}>
          {entries.map((e, i) => (
            <AttemptItem key={`${e.start ?? e.end}-${e.attempt ?? 'lost'}`} e={e} gapBefore={i === 1 ? dropped : 0} />
          ))}
        </ol>
      )}
    </section>
  );
}

function AttemptItem({ e, gapBefore }: { e: AttemptRecord['entries'][number]; gapBefore: number }) {
  const iso = (ms: number) => new Date(ms).toISOString();
  return (
    <>
      {gapBefore > 0 && (
        <li className="muted small" data-testid="job-attempts-dropped">
          {gapBefore} {gapBefore === 1 ? 'attempt' : 'attempts'} between these not kept: a record keeps the first attempt and the latest 24.
        </li>
      )}
      <li data-testid="job-attempt" data-outcome={e.outcome} data-attempt={e.attempt ?? ''}>
        <div className="row">
          <strong>{e.attempt ? `Attempt ${e.attempt}` : 'Lost attempt'}</strong>
          <Badge tone={OUTCOME_TONE[e.outcome]} testId="job-attempt-outcome">
            {e.outcome}
          </Badge>
          {e.errorClass && (
            <Badge tone="neutral" testId="job-attempt-class" title="Error class (lib/errors/classify.ts)">
              {e.errorClass}
            </Badge>
          )}
        </div>
        <p className="small" style={{ margin: '0.25rem 0 0' }}>
          {e.start !== undefined ? (
            <>
              <time dateTime={iso(e.start)} title={iso(e.start)}>
                {attemptClock(e.start)}
              </time>{' '}
              to{' '}
            </>
          ) : (
            'Found '
          )}
          <time dateTime={iso(e.end)} title={iso(e.end)}>
            {attemptClock(e.end)}
          </time>
          {e.durationMs !== undefined && <> ({formatDurationMs(e.durationMs)})</>}
          {e.worker && (
            <>
              {' '}
              on <span className="mono">{e.worker}</span>
            </>
          )}
          . <span data-testid="job-attempt-next">{attemptSentence(e)}</span>
        </p>
        {e.message && (
          <p className="small mono" style={{ margin: '0.25rem 0 0', overflowWrap: 'anywhere' }} data-testid="job-attempt-message">
            {e.message}
          </p>
        )}
      </li>
    </>
  );
}

/** The last error and every failed attempt's stack trace (BullMQ keeps one per attempt). */
function JobErrors({ job }: { job: JobDetail }) {
  if (!job.failedReason && job.stacktrace.length === 0) return null;
  return (
    <section className="card" aria-labelledby="errors-h">
      <h2 id="errors-h">Errors</h2>
      {job.failedReason && (
        <p className="result error" data-testid="job-attempt-error">
          {job.failedReason}
        </p>
      )}
      {job.stacktrace.length > 0 && (
        <ol className="stack" style={{ paddingLeft: '1.25rem' }}>
          {job.stacktrace.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: one stack per attempt, in attempt order: the index is the attempt.
            <li key={i}>
              <details open={i === job.stacktrace.length - 1}>
                <summary>
                  Attempt {i + 1}: {s.split('\n')[0]}
                </summary>
                {/* A long trace scrolls in its box: focusable so the keyboard can scroll it too, like the logs. */}
                <pre
                  className="logs"
                  data-testid="job-stacktrace"
                  role="region"
                  aria-label={`Stack trace of attempt ${i + 1}`}
                  tabIndex={0}
                >
                  {s}
                </pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
