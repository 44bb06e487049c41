import Link from 'next/link';
import type { JobPage } from '@/dashboard/client/read-models';

/** Log lines (page 1 = newest 100), with links to older pages. */
export function JobLogs({ logs, queue, id }: { logs: JobPage['logs']; queue: string; id: string }) {
  const base = `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id)}`;
  return (
    <section className="card" aria-labelledby="logs-h">
      <h2 id="logs-h">Logs</h2>
      {logs.count === 0 ? (
        <p className="muted" data-testid="job-logs">
          No log lines.
        </p>
      ) : (
        <>
          <p className="small muted">
            {logs.count.toLocaleString('en')} {logs.count === 1 ? 'line' : 'lines'}
            {logs.pageCount > 1 ? ` · page ${logs.page} of ${logs.pageCount} (page 1 is the newest)` : ''}
          </p>
          <pre className="logs" data-testid="job-logs" tabIndex={0}>
            {logs.lines.join('\n')}
          </pre>
          {logs.pageCount > 1 && (
            <div className="row small">
              {logs.page > 1 && <Link href={logs.page === 2 ? base : `${base}?logs=${logs.page - 1}`}>‹ Newer</Link>}
              {logs.page < logs.pageCount && <Link href={`${base}?logs=${logs.page + 1}`}>Older ›</Link>}
            </div>
          )}
        </>
      )}
    </section>
  );
}
