import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { Table } from '@/components/ui/table';
import { formatDurationMs, type QueueHealthRow } from '@/dashboard/client/health-view';
import { queueHref } from '@/dashboard/client/queue-filters';

/** Workers and waiting jobs of each queue the health checks watch. */
export function HealthQueueTable({ rows, minWorkersLabel }: { rows: QueueHealthRow[]; minWorkersLabel: string }) {
  return (
    <Table
      caption={`Queues with a handler in this build (minimum ${minWorkersLabel} queue worker${minWorkersLabel === '1' ? '' : 's'} each; a worker process runs one per queue it serves)`}
    >
      <thead>
        <tr>
          <th scope="col">Queue</th>
          <th scope="col" className="num">
            Queue workers
          </th>
          <th scope="col" className="num">
            Waiting
          </th>
          <th scope="col" className="num">
            Oldest waiting
          </th>
          <th scope="col">Notes</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.queue} data-testid="health-queue-row" data-queue={r.queue}>
            <td>
              <Link href={queueHref(r.queue)}>{r.queue}</Link>
            </td>
            <td className="num" data-testid="health-queue-workers">
              {r.workers ?? '—'}
            </td>
            <td className="num">{r.waiting?.toLocaleString('en') ?? '—'}</td>
            <td className="num">{formatDurationMs(r.oldestWaitingMs)}</td>
            <td>
              <span className="row">
                {r.belowMinimum && <Badge tone="danger">below minimum</Badge>}
                {r.paused && (
                  <Badge tone="warn" title="A paused queue's jobs wait on purpose: not judged">
                    paused
                  </Badge>
                )}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
