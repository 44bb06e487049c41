'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { fetchJson } from '@/components/live/fetch-json';
import { LiveStatus } from '@/components/live/live-status';
import { RelativeTime } from '@/components/ui/relative-time';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import type { WebhookDetail } from '@/dashboard/client/read-models';
import { type WebhookActionSet, WebhookActions } from './webhook-actions';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookEvents, WebhookState, WindowCount } from './webhook-state';

/** The webhook's pending dead letters as the server found them for this render (a bounded scan, not polled). */
export interface PendingView {
  ids: Array<{ id: string; failedAt: number; message: string }>;
  scanned: number;
  complete: boolean;
}

/**
 * One webhook, refreshed live: its state, the failures that count toward maxFailures, a
 * page of its deliveries, its pending dead letters, and (operators) the controls to mend it.
 */
export function WebhookView(props: { initial: WebhookDetail; pending: PendingView; maxReplays: number; actions?: WebhookActionSet }) {
  const { initial, pending, maxReplays, actions } = props;
  const id = initial.webhook.id;
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.webhook(id, initial.page),
    queryFn: ({ signal }) => fetchJson<WebhookDetail>(liveUrls.webhook(id, initial.page), signal),
    initialData: initial,
  });
  const { webhook, failures, deliveries, page, hasNext, deliveryJobType } = q.data;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="webhook-title" data-testid="webhook-detail" data-state={webhook.state}>
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <h2 id="webhook-title" className="mono">
            {webhook.id}
          </h2>
          <LiveStatus updatedAt={q.dataUpdatedAt} error={q.error} fetching={q.isFetching} />
        </div>
        <dl className="dl">
          <dt>URL</dt>
          <dd className="mono wrap-anywhere" data-testid="webhook-url">
            {webhook.url}
          </dd>
          {webhook.description && (
            <>
              <dt>Description</dt>
              <dd>{webhook.description}</dd>
            </>
          )}
          <dt>Owner</dt>
          <dd className="mono" data-testid="webhook-owner">
            {webhook.orgId ?? (
              <span className="muted">none (registered before owners existed; only an admin may add jobs that name it)</span>
            )}
          </dd>
          <dt>Events</dt>
          <dd>
            <WebhookEvents webhook={webhook} detail />
          </dd>
          <dt>State</dt>
          <dd>
            <WebhookState webhook={webhook} />
          </dd>
          <dt>Failures counted</dt>
          <dd>
            <WindowCount webhook={webhook} /> <span className="small muted">(disabled when they reach maxFailures)</span>
          </dd>
          <dt>Registered</dt>
          <dd>
            <RelativeTime ms={webhook.createdAt} />
          </dd>
        </dl>
        {failures.length > 0 && (
          <details data-testid="webhook-window-failures">
            <summary>The failed attempts that count ({webhook.failuresInWindow.toLocaleString('en')})</summary>
            <ul className="small">
              {failures.map((f) => (
                <li key={`${f.at}:${f.deliveryId}:${f.attempt}`} data-testid="webhook-window-failure">
                  <RelativeTime ms={f.at} /> · delivery <span className="mono">{f.deliveryId}</span> · attempt {f.attempt}
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>
      {actions && (
        <WebhookActions
          webhook={webhook}
          jobType={deliveryJobType}
          pendingFound={pending.ids.length}
          maxReplays={maxReplays}
          actions={actions}
          onChanged={() => void qc.invalidateQueries({ queryKey: queryKeys.webhook(id, initial.page) })}
        />
      )}
      <section className="card" aria-labelledby="pending-title" data-testid="webhook-pending" data-count={pending.ids.length}>
        <h2 id="pending-title">Pending dead letters</h2>
        {pending.ids.length === 0 ? (
          <p className="muted">
            None{pending.complete ? '' : ` among the newest ${pending.scanned.toLocaleString('en')} pending webhook dead letters`}.
          </p>
        ) : (
          <>
            <p className="small muted">
              {pending.ids.length.toLocaleString('en')} found
              {pending.complete ? '' : ` among the newest ${pending.scanned.toLocaleString('en')} pending webhook dead letters`}; replays go
              through the dead-letter queue, each with fresh attempts.
            </p>
            <ul className="small">
              {pending.ids.map((d) => (
                <li key={d.id} data-testid="webhook-pending-dead-letter" data-id={d.id}>
                  <Link href={`/dead-letters/${encodeURIComponent(d.id)}`} className="mono">
                    {d.id}
                  </Link>{' '}
                  · <RelativeTime ms={d.failedAt} /> · {d.message}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <WebhookDeliveries webhookId={id} jobType={deliveryJobType} rows={deliveries} page={page} hasNext={hasNext} />
    </div>
  );
}
