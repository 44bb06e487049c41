'use client';

import Link from 'next/link';
import type { Overview, QueueOverview } from '@/dashboard/client/read-models';
import { failureRates, jobsPerMinute } from '@/dashboard/client/chart-series';
import { queueHref } from '@/dashboard/client/queue-filters';
import { StatusPill } from '@/components/ui/badge';
import { Sparkline } from '@/components/ui/sparkline';
import { Table } from '@/components/ui/table';
import { formatCount, formatPercent, formatRate } from './format';
import { useOverview } from './use-overview';

const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'] as const;
/** On a phone the table keeps what needs attention: waiting, active, failed. */
const HIDE_ON_PHONE = new Set<string>(['delayed', 'prioritized', 'completed']);

/** Every queue with its counts per state, workers and sparklines; live. */
export function QueueTable({ initial }: { initial: Overview }) {
  const { data } = useOverview(initial);
  return (
    <Table caption={`${data.queues.length} queues`} data-testid="queue-table">
      <thead>
        <tr>
          <th scope="col">Queue</th>
          {STATES.map((s) => (
            <th key={s} scope="col" className={`num${HIDE_ON_PHONE.has(s) ? ' hide-sm' : ''}`}>
              {s}
            </th>
          ))}
          <th scope="col" className="num hide-sm">
            Workers
          </th>
          <th scope="col" className="hide-sm">
            Jobs/min
          </th>
          <th scope="col" className="hide-sm">
            Failure rate
          </th>
        </tr>
      </thead>
      <tbody>
        {data.queues.map((q) => (
          <QueueRow key={q.name} q={q} />
        ))}
      </tbody>
    </Table>
  );
}

function QueueRow({ q }: { q: QueueOverview }) {
  const perMin = jobsPerMinute(q.series);
  return (
    <tr data-testid="queue-row" data-queue={q.name}>
      <th scope="row" style={{ fontWeight: 500 }}>
        <Link href={queueHref(q.name)} data-testid={`queue-link-${q.name}`}>
          {q.name}
        </Link>{' '}
        {q.paused && <StatusPill status="paused" />}
        <span className="small muted hide-sm"> · {q.group}</span>
      </th>
      {STATES.map((s) => (
        <td key={s} className={`num${HIDE_ON_PHONE.has(s) ? ' hide-sm' : ''}`}>
          {q.counts[s] > 0 ? (
            <Link href={queueHref(q.name, { state: s })} style={s === 'failed' ? { color: 'var(--danger)', fontWeight: 600 } : undefined}>
              {formatCount(q.counts[s])}
            </Link>
          ) : (
            <span className="muted">0</span>
          )}
        </td>
      ))}
      <td className="num hide-sm" data-testid="queue-workers">
        {q.workers === null ? (
          <span className="muted" title="CLIENT LIST is not allowed on this Redis">
            ?
          </span>
        ) : (
          q.workers
        )}
      </td>
      <td className="hide-sm" style={{ minWidth: '8rem' }}>
        <Sparkline points={perMin} label={`${q.name}: ${formatRate(q.jobsPerMin)} jobs per minute`} />
        <span className="small muted">{formatRate(q.jobsPerMin)}/min</span>
      </td>
      <td className="hide-sm" style={{ minWidth: '8rem' }}>
        <Sparkline
          points={failureRates(q.series)}
          max={1}
          color="var(--chart-failed)"
          label={`${q.name}: failure rate ${formatPercent(q.failureRate)}`}
        />
        <span className="small muted">{formatPercent(q.failureRate)}</span>
      </td>
    </tr>
  );
}
