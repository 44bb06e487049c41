import Link from 'next/link';
import { StatusPill } from '@/components/ui/badge';
import { Pagination } from '@/components/ui/pagination';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { DeliveryJobLink } from './delivery-job-link';
import type { DeliveryRow } from '@/dashboard/client/read-models';

/** A page of delivery records, newest first: one row per HTTP attempt, linked to its job and dead letter. */
export function WebhookDeliveries(props: {
  webhookId: string;
  jobType: string | null;
  rows: DeliveryRow[];
  page: number;
  hasNext: boolean;
}) {
  const { webhookId, rows, page, hasNext } = props;
  return (
    <section className="card" aria-labelledby="deliveries-title" data-testid="webhook-deliveries">
      <h2 id="deliveries-title">Recent deliveries</h2>
      {rows.length === 0 ? (
        <p className="muted" data-testid="webhook-deliveries-empty">
          {page > 1 ? 'No delivery records on this page.' : 'No delivery was attempted yet (the last 1,000 attempts are kept).'}
        </p>
      ) : (
        <Table id="results" data-testid="webhook-delivery-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Outcome</th>
              <th scope="col">Latency</th>
              <th scope="col">Attempt</th>
              <th scope="col">Delivery and idempotency</th>
              <th scope="col">Job and dead letter</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr
                key={`${d.jobId}:${d.attempt}:${d.at}`}
                data-testid="webhook-delivery"
                data-ok={String(d.ok)}
                data-status-code={d.statusCode ?? ''}
                data-job-id={d.jobId}
              >
                <td className="small">
                  <RelativeTime ms={d.at} />
                  {d.event && <div className="mono small muted">{d.event}</div>}
                </td>
                <td className="small">
                  <span data-testid="webhook-delivery-status">{d.statusCode !== undefined ? `HTTP ${d.statusCode}` : 'no answer'}</span>{' '}
                  {d.ok ? '· delivered' : '· failed'}
                  {d.error && <div className="muted wrap-anywhere">{d.error}</div>}
                </td>
                <td className="small">{d.latencyMs.toLocaleString('en')} ms</td>
                <td className="small">{d.attempt}</td>
                <td className="mono small wrap-anywhere">
                  <div data-testid="webhook-delivery-id">{d.deliveryId}</div>
                  <div className="muted" data-testid="webhook-idempotency-key">
                    {d.idempotencyKey ?? 'key not recorded'}
                  </div>
                </td>
                <td className="small">
                  <DeliveryJobLink jobType={props.jobType} jobId={d.jobId} className="mono wrap-anywhere" testId="webhook-delivery-job" />
                  {d.deadLetter && (
                    <div className="row">
                      <Link
                        href={`/dead-letters/${encodeURIComponent(d.deadLetter.id)}`}
                        className="mono"
                        data-testid="webhook-delivery-dead-letter"
                      >
                        {d.deadLetter.id}
                      </Link>
                      <StatusPill status={d.deadLetter.status} />
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pagination
        page={page}
        hasNext={hasNext}
        hrefFor={(p) => `/webhooks/${encodeURIComponent(webhookId)}?page=${p}`}
        label="Delivery pages"
      />
    </section>
  );
}
