import type { JobDetail } from '@/dashboard/client/read-models';

/** The last error and every failed attempt's stack trace (BullMQ keeps one per attempt). */
export function JobAttempts({ job }: { job: JobDetail }) {
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
