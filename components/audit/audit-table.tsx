import Link from 'next/link';
import type { AuditRow } from '@/dashboard/client/read-models';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { RESULTS_ID } from '@/components/layout/results-id';

/** Where an audit target lives in the dashboard, when it has a page. */
function targetHref(t: AuditRow['target']): string | undefined {
  if (t.kind === 'job') {
    const [queue, ...id] = t.id.split('/');
    return id.length ? `/queues/${encodeURIComponent(queue)}/jobs/${encodeURIComponent(id.join('/'))}` : undefined;
  }
  if (t.kind === 'queue') return `/queues/${encodeURIComponent(t.id)}`;
  if (t.kind === 'dead-letter') return `/dead-letters/${encodeURIComponent(t.id)}`;
  if (t.kind === 'schedule') return '/schedules';
  return undefined;
}

export function AuditTable({ entries }: { entries: AuditRow[] }) {
  if (entries.length === 0) return <p className="card muted">No audit entries yet.</p>;
  return (
    <Table caption="Audit entries, newest first" id={RESULTS_ID} tabIndex={-1} data-testid="audit-table">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col" className="hide-sm">
            Tenant
          </th>
          <th scope="col" className="hide-sm">
            Details
          </th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => {
          const href = targetHref(e.target);
          return (
            <tr key={e.id} data-testid="audit-row" data-action={e.action}>
              <td style={{ whiteSpace: 'nowrap' }}>
                <RelativeTime ms={e.at} />
              </td>
              <td>{e.actor}</td>
              <td className="mono">{e.action}</td>
              <td>
                <span className="muted small">{e.target.kind}</span>{' '}
                {href ? (
                  <Link href={href} className="mono">
                    {e.target.id}
                  </Link>
                ) : (
                  <span className="mono">{e.target.id}</span>
                )}
              </td>
              <td className="hide-sm mono">
                {e.tenant ? `${e.tenant.orgId}${e.tenant.workspaceId ? `/${e.tenant.workspaceId}` : ''}` : ''}
              </td>
              <td className="hide-sm mono small" style={{ maxWidth: '40ch', overflowWrap: 'anywhere' }}>
                {e.details}
              </td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
