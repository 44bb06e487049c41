import type { SignInFailureRow } from '@/dashboard/client/runtime-shared';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';

/** Refused sign-ins, one row per client per minute, newest first. */
export function SignInFailuresTable({ rows, caption }: { rows: SignInFailureRow[]; caption: string }) {
  if (rows.length === 0) return <p className="card muted">No refused sign-ins in the retention window.</p>;
  return (
    <Table caption={caption} scrollLabel={caption} data-testid="sign-in-failures-table">
      <thead>
        <tr>
          <th scope="col">Minute</th>
          <th scope="col">Client</th>
          <th scope="col">Refused</th>
          <th scope="col" className="hide-sm">
            Why
          </th>
          <th scope="col" className="hide-sm">
            Last name tried
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} data-testid="sign-in-failure-row" data-client={r.client}>
            <td style={{ whiteSpace: 'nowrap' }}>
              <RelativeTime ms={r.minute} />
            </td>
            <td className="mono">{r.client}</td>
            <td data-testid="sign-in-failure-count">{r.count ?? '≥ 1'}</td>
            <td className="hide-sm mono small">
              {Object.entries(r.reasons)
                .map(([code, n]) => `${code} ×${n}`)
                .join(', ')}
            </td>
            <td className="hide-sm mono">{r.lastUser}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
