'use client';

import Link from 'next/link';
import type { Overview } from '@/dashboard/client/read-models';
import { StatusPill } from '@/components/ui/badge';
import { LiveStatus } from '@/components/live/live-status';
import { formatCount, formatPercent, formatRate } from './format';
import { useOverview } from './use-overview';

/** Health, dead letters and the totals at a glance. */
export function OverviewTiles({ initial }: { initial: Overview }) {
  const { data, error, dataUpdatedAt, isFetching } = useOverview(initial);
  const t = data.totals;
  return (
    <section aria-label="At a glance" className="stack">
      <div className="row" style={{ justifyContent: 'flex-end' }}>
        <LiveStatus updatedAt={dataUpdatedAt} error={error} fetching={isFetching} />
      </div>
      <div className="grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 160px), 1fr))' }}>
        <Tile label="Health" testId="tile-health">
          <Link href="/health">
            {data.health ? <StatusPill status={data.health} testId="overview-health" /> : <span className="muted">unknown</span>}
          </Link>
        </Tile>
        <Tile label="Dead letters (pending)" testId="tile-dead-letters">
          <Link href="/dead-letters" className="stat" data-testid="overview-dlq-count">
            {formatCount(data.deadLetters)}
          </Link>
        </Tile>
        <Tile label="Waiting" testId="tile-waiting" value={formatCount(t.waiting + t.prioritized)} />
        <Tile label="Active" testId="tile-active" value={formatCount(t.active)} />
        <Tile label="Delayed" testId="tile-delayed" value={formatCount(t.delayed)} />
        <Tile label="Failed" testId="tile-failed" value={formatCount(t.failed)} tone={t.failed > 0 ? 'var(--danger)' : undefined} />
        {/* Processes, not the per-queue workers Health counts: one process serves many queues. */}
        <Tile label="Worker processes" testId="tile-workers" value={t.workers === null ? 'unknown' : formatCount(t.workers)}>
          <span className="small muted">each runs a queue worker per job type</span>
        </Tile>
        <Tile label="Jobs / min (5 min)" testId="tile-throughput" value={formatRate(data.jobsPerMin)} />
        <Tile
          label="Failure rate (5 min)"
          testId="tile-failure-rate"
          value={formatPercent(data.failureRate)}
          tone={data.failureRate > 0.05 ? 'var(--danger)' : undefined}
        />
        {t.paused > 0 && <Tile label="Paused queues" testId="tile-paused" value={formatCount(t.paused)} tone="var(--warn)" />}
      </div>
    </section>
  );
}

function Tile({
  label,
  value,
  children,
  tone,
  testId,
}: {
  label: string;
  value?: string;
  children?: React.ReactNode;
  tone?: string;
  testId: string;
}) {
  return (
    <div className="card" data-testid={testId}>
      <div className="small muted">{label}</div>
      {value !== undefined && (
        <div className="stat" style={tone ? { color: tone } : undefined}>
          {value}
        </div>
      )}
      {children}
    </div>
  );
}
