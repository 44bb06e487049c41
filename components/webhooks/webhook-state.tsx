import { StatusPill } from '@/components/ui/badge';
import { RelativeTime } from '@/components/ui/relative-time';
import type { WebhookRow } from '@/dashboard/client/read-models';

/** Active or disabled, since when, and why: the first thing an operator mending a webhook reads. */
export function WebhookState({ webhook }: { webhook: WebhookRow }) {
  return (
    <div data-testid="webhook-state" data-state={webhook.state}>
      <div className="row">
        <StatusPill status={webhook.state} />
        <span className="small muted" data-testid="webhook-since">
          since <RelativeTime ms={webhook.since} />
        </span>
      </div>
      {webhook.disabledReason && (
        <div className="small" data-testid="webhook-disabled-reason">
          {webhook.disabledReason}
        </div>
      )}
    </div>
  );
}

/** "3 of 10 in 24 h": the failed attempts that count toward the automatic disable. */
export function WindowCount({ webhook }: { webhook: WebhookRow }) {
  const near = webhook.failuresInWindow >= webhook.maxFailures;
  return (
    <span
      data-testid="webhook-failures"
      data-count={webhook.failuresInWindow}
      data-max={webhook.maxFailures}
      style={near ? { color: 'var(--danger)' } : undefined}
    >
      {webhook.failuresInWindow.toLocaleString('en')} of {webhook.maxFailures.toLocaleString('en')} in 24 h
    </span>
  );
}

/** The webhook's event filter: the events it receives, or every event when it has none. */
export function WebhookEvents({ webhook, detail = false }: { webhook: Pick<WebhookRow, 'events'>; detail?: boolean }) {
  if (!webhook.events) {
    return <span data-testid="webhook-events">{detail ? 'every event dispatched to it (no event filter)' : 'every event'}</span>;
  }
  return (
    <span data-testid="webhook-events" data-count={webhook.events.length}>
      {webhook.events.map((e, i) => (
        <span key={e}>
          {i > 0 && ', '}
          <code>{e}</code>
        </span>
      ))}
      {detail && <span className="small muted"> (other events are not sent; the job completes as "not subscribed")</span>}
    </span>
  );
}
