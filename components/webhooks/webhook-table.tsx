import Link from 'next/link';
import { Pagination } from '@/components/ui/pagination';
import { Table } from '@/components/ui/table';
import type { WebhookList } from '@/dashboard/client/read-models';
import { WebhookEvents, WebhookState, WindowCount } from './webhook-state';

/** Every registered webhook, a page at a time: its URL without secrets, its state and its failures in the window. */
export function WebhookTable({ list }: { list: WebhookList }) {
  if (list.total === 0) {
    return (
      <section className="card" data-testid="webhooks-empty" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <p className="muted">
          No webhook is registered. Applications register them with <code>bullpen.webhooks.create</code> (docs/webhooks.md).
        </p>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="webhooks-title">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2 id="webhooks-title">Webhooks</h2>
        <span className="small muted" data-testid="webhooks-total">
          {list.total.toLocaleString('en')} registered
        </span>
      </div>
      <Table data-testid="webhooks-table" id="results">
        <thead>
          <tr>
            <th scope="col">Webhook</th>
            <th scope="col">Owner</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Failures</th>
          </tr>
        </thead>
        <tbody>
          {list.rows.map((w) => (
            <tr key={w.id} data-testid="webhook-row" data-id={w.id} data-state={w.state}>
              <td>
                <Link href={`/webhooks/${encodeURIComponent(w.id)}`} className="mono" data-testid={`webhook-link-${w.id}`}>
                  {w.id}
                </Link>
                {w.description && <div className="small muted">{w.description}</div>}
              </td>
              <td className="mono small" data-testid="webhook-owner">
                {w.orgId ?? <span className="muted">none</span>}
              </td>
              <td className="mono small wrap-anywhere" data-testid="webhook-url">
                {w.url}
              </td>
              <td className="small">
                <WebhookEvents webhook={w} />
              </td>
              <td>
                <WebhookState webhook={w} />
              </td>
              <td className="small">
                <WindowCount webhook={w} />
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Pagination page={list.page} pageCount={list.pageCount} hrefFor={(p) => `/webhooks?page=${p}`} label="Webhook pages" />
    </section>
  );
}
