import Link from 'next/link';
import { Badge, StatusPill } from '@/components/ui/badge';
import { Table } from '@/components/ui/table';
import type { ForeignQueues } from '@/dashboard/client/read-models';

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

/**
 * BullMQ queues found under the configured prefixes that the job table does not define
 * (another service's, or an old type's): marked foreign, each linking to its queue page,
 * where the generic operations work and jobs' data is shown as it is.
 */
export function ForeignQueueTable({ data }: { data: ForeignQueues }) {
  return (
    <section className="stack" aria-labelledby="foreign-h" data-testid="foreign-queues">
      <h2 id="foreign-h">Other BullMQ queues</h2>
      <p className="small muted">
        Found under the prefix{data.prefixes.length === 1 ? '' : 'es'} {data.prefixes.map((p) => `“${p}”`).join(', ')} (
        <code>BULLPEN_QUEUE_PREFIXES</code>) and not defined by this dashboard&apos;s job table.
        {data.truncated && ' The search stopped at its budget: there may be more.'}
      </p>
      {data.queues.length === 0 ? (
        <p className="card muted" data-testid="foreign-queues-empty">
          None found.
        </p>
      ) : (
        <Table caption="Foreign queues and their jobs per state">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Prefix</th>
              {STATES.map((s) => (
                <th key={s} scope="col" className="num">
                  {s}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.queues.map((q) => (
              <tr key={q.ref} data-testid="foreign-queue-row" data-queue={q.ref}>
                <td>
                  <span className="row" style={{ flexWrap: 'nowrap' }}>
                    <Link href={`/queues/${encodeURIComponent(q.ref)}`} data-testid={`foreign-queue-link-${q.name}`}>
                      {q.name}
                    </Link>
                    <Badge tone="violet">foreign</Badge>
                    {q.paused && <StatusPill status="paused" />}
                  </span>
                </td>
                <td className="mono small">{q.prefix}</td>
                {STATES.map((s) => (
                  <td key={s} className="num" data-state={s}>
                    {q.counts[s].toLocaleString('en')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
