import Link from 'next/link';
import type { ReactNode } from 'react';
import { Badge, StatusPill } from '@/components/ui/badge';
import { JsonView } from '@/components/ui/json-view';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { deadLettersHref } from '@/dashboard/client/dead-letters-filters';
import type { DeadLetterDetail } from '@/dashboard/client/read-models';
import { jobPageHref } from '@/dashboard/client/schedules-view';

const iso = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** The failure, the original job and the replay history of one dead letter (read-only parts). */
export function DeadLetterDetailView({ entry: e, actions }: { entry: DeadLetterDetail; actions?: ReactNode }) {
  const tenant = e.tenant ? `${e.tenant.orgId}${e.tenant.workspaceId ? ` / ${e.tenant.workspaceId}` : ''}` : undefined;
  return (
    <div className="stack">
      <div className="grid">
        <section className="card" aria-labelledby="dlq-failure-h" data-testid="dlq-failure">
          <h2 id="dlq-failure-h">Failure</h2>
          <dl className="dl">
            <dt>Failed</dt>
            <dd>
              {iso(e.failedAt)} (<RelativeTime ms={e.failedAt} />)
            </dd>
            <dt>Error class</dt>
            <dd>
              <Link href={deadLettersHref({ errorClass: e.errorClass })}>
                <Badge>{e.errorClass}</Badge>
              </Link>
              {e.error.code && <span className="mono small"> {e.error.code}</span>}
            </dd>
            <dt>Attempts</dt>
            <dd data-testid="dlq-attempts">{e.attempts}</dd>
            <dt>Recorded by</dt>
            <dd>{SOURCE_TEXT[e.source]}</dd>
            {e.discardedBy && (
              <>
                <dt>Discarded by</dt>
                <dd>{e.discardedBy}</dd>
              </>
            )}
          </dl>
          <h3>Message</h3>
          <pre className="logs" data-testid="dlq-error-message">
            {e.error.message || '(no message)'}
          </pre>
          {e.error.stack && (
            <details>
              <summary>Stack trace</summary>
              <pre className="logs small" data-testid="dlq-error-stack">
                {e.error.stack}
              </pre>
            </details>
          )}
        </section>

        <section className="card" aria-labelledby="dlq-job-h" data-testid="dlq-original-job">
          <h2 id="dlq-job-h">Original job</h2>
          <dl className="dl">
            <dt>Queue</dt>
            <dd>
              <Link href={`/queues/${encodeURIComponent(e.queue)}`}>{e.queue}</Link>
              {!e.knownType && <Badge tone="warn"> unknown to this build</Badge>}
              {e.knownType && !e.handledType && (
                <Badge tone="warn" title="A replay waits until a worker with this handler runs">
                  no handler in this build
                </Badge>
              )}
            </dd>
            <dt>Job</dt>
            <dd>
              {e.originalJobState === 'gone' ? (
                <span data-testid="dlq-original-job-state" data-state="gone">
                  <span className="mono">{e.originalJobId}</span>{' '}
                  <span className="muted">
                    — no longer in the queue (removed by retention or purged); its attempts timeline went with it, and this entry keeps the
                    last error and the failure history below
                  </span>
                </span>
              ) : (
                <span className="row" data-testid="dlq-original-job-state" data-state={e.originalJobState}>
                  <Link href={jobPageHref(e.queue, e.originalJobId)} className="mono" data-testid="dlq-original-job-link">
                    {e.originalJobId}
                  </Link>
                  <StatusPill status={e.originalJobState} />
                  <Link href={`${jobPageHref(e.queue, e.originalJobId)}#attempts`} className="small" data-testid="dlq-attempts-link">
                    attempts timeline
                  </Link>
                </span>
              )}
            </dd>
            {e.latestFailedJobId !== e.originalJobId && (
              <>
                <dt>Latest failure</dt>
                <dd>
                  <Link href={jobPageHref(e.queue, e.latestFailedJobId)} className="mono" data-testid="dlq-latest-failed-job">
                    {e.latestFailedJobId}
                  </Link>
                </dd>
              </>
            )}
            <dt>Tenant</dt>
            <dd>
              {tenant && e.tenant ? (
                <Link href={deadLettersHref({ tenant: e.tenant.orgId })}>{tenant}</Link>
              ) : (
                <span className="muted">none</span>
              )}
            </dd>
            {e.envelope.requestId && (
              <>
                <dt>Request id</dt>
                <dd className="mono small">{e.envelope.requestId}</dd>
              </>
            )}
            {e.envelope.idempotencyKey && (
              <>
                <dt>Idempotency key</dt>
                <dd className="mono small">{e.envelope.idempotencyKey}</dd>
              </>
            )}
            {e.envelope.dispatchedAt && (
              <>
                <dt>Dispatched</dt>
                <dd>{iso(e.envelope.dispatchedAt)}</dd>
              </>
            )}
            {e.envelope.schedule && (
              <>
                <dt>Schedule</dt>
                <dd>
                  <Link href="/schedules">{e.envelope.schedule}</Link>
                </dd>
              </>
            )}
            {e.envelope.replayOf && (
              <>
                <dt>Replay of</dt>
                <dd>
                  <Link href={`/dead-letters/${e.envelope.replayOf}`} className="mono small">
                    {e.envelope.replayOf}
                  </Link>
                </dd>
              </>
            )}
          </dl>
        </section>
      </div>

      <section className="card" aria-labelledby="dlq-payload-h">
        <h2 id="dlq-payload-h">Payload</h2>
        {/* One payload, named by the run it is from: after a failed edited replay, that replay's. */}
        <p className="small muted" data-testid="dlq-payload-from" data-job-id={e.payloadFrom.jobId} data-edited={e.payloadFrom.edited}>
          {e.payloadFrom.replay === undefined ? (
            <>As the original job had it; a replay sends it again unless you edit it.</>
          ) : (
            <>
              As edited for replay {e.payloadFrom.replay} (job <span className="mono">{e.payloadFrom.jobId}</span>); a replay sends this
              edit again unless you edit it, never the payload it replaced.
            </>
          )}
        </p>
        {e.payloadTooLarge ? (
          <div className="stack" data-testid="dlq-payload-too-large" data-bytes={e.payloadTooLarge.bytes}>
            <p>
              The job&apos;s data was {e.payloadTooLarge.bytes.toLocaleString('en')} bytes of JSON, over the limit of{' '}
              {e.payloadTooLarge.limit.toLocaleString('en')} bytes (<span className="mono">BULLPEN_MAX_PAYLOAD_BYTES</span>). Only its start
              was kept:
            </p>
            <pre className="mono small" data-testid="dlq-payload-preview">
              {e.payloadTooLarge.preview}…
            </pre>
          </div>
        ) : (
          <JsonView
            value={e.payload.value}
            truncated={e.payload.truncated}
            originalBytes={e.payload.bytes}
            testId="dlq-payload"
            label="Payload (JSON)"
          />
        )}
      </section>

      {actions}

      <section className="card" aria-labelledby="dlq-failures-h" data-testid="dlq-failure-history" data-count={e.failureHistory.length}>
        <h2 id="dlq-failures-h">Failures</h2>
        <p className="small muted">Every final failure of this job and of its retries and replays: one record, its history growing.</p>
        <Table caption="Newest first" scrollLabel="Failures, table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Job</th>
              <th scope="col">Attempts</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {e.failureHistory.map((f) => (
              <tr key={`${f.at}-${f.jobId}`} data-testid="dlq-failure-row" data-job-id={f.jobId}>
                <td>
                  <span title={iso(f.at)}>
                    <RelativeTime ms={f.at} />
                  </span>
                </td>
                <td>
                  <span className="mono small">{f.jobId}</span>
                </td>
                <td>{f.attempts}</td>
                <td>
                  <Badge tone="neutral">{f.error.errorClass}</Badge> <span className="small">{f.error.message}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      </section>

      <section className="card" aria-labelledby="dlq-history-h" data-testid="dlq-replay-history" data-count={e.replayHistory.length}>
        <h2 id="dlq-history-h">Replay history</h2>
        {e.replayHistory.length === 0 ? (
          <p className="muted">Never replayed.</p>
        ) : (
          <Table caption="Newest first" scrollLabel="Replay history, table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">By</th>
                <th scope="col">Payload</th>
                <th scope="col">Job</th>
              </tr>
            </thead>
            <tbody>
              {e.replayHistory.map((r) => (
                <tr key={`${r.at}-${r.newJobId}`} data-testid="dlq-replay-row" data-job-id={r.newJobId}>
                  <td>
                    <span title={iso(r.at)}>
                      <RelativeTime ms={r.at} />
                    </span>
                  </td>
                  <td>{r.by}</td>
                  <td>{r.edited ? <Badge tone="violet">edited</Badge> : <span className="muted">original</span>}</td>
                  <td>
                    <span className="row">
                      {r.jobState === 'gone' ? (
                        <span className="mono small muted">{r.newJobId}</span>
                      ) : (
                        <Link href={jobPageHref(e.queue, r.newJobId)} className="mono small" data-testid="dlq-replay-job-link">
                          {r.newJobId}
                        </Link>
                      )}
                      {r.jobState && <StatusPill status={r.jobState} />}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </section>
    </div>
  );
}

const SOURCE_TEXT: Record<DeadLetterDetail['source'], string> = {
  runtime: 'the runtime, at the final failure',
  reconciler: 'the reconciler (swept from the failed set)',
  stalled: 'the stalled-job check',
};
