'use client';

import { useLiveQuery } from '@/components/live/use-live-query';
import { LiveStatus } from '@/components/live/live-status';
import { useRedisState } from '@/components/live/redis-status';
import { StatusPill } from '@/components/ui/badge';
import { RelativeTime } from '@/components/ui/relative-time';
import { overallSentence, queueHealthRows, toCheckView, withRedisState } from '@/dashboard/client/health-view';
import { queryKeys } from '@/dashboard/client/query-keys';
import type { HealthReport } from '@/dashboard/client/runtime-shared';
import { HealthCheckCard } from './health-check-card';
import { HealthQueueTable } from './health-queue-table';

export interface HealthBoardProps {
  /** The server's first report, shown until the first poll answers. */
  initial: HealthReport;
  /** The session-protected JSON endpoint polled every few seconds. */
  liveUrl: string;
}

/**
 * The health page body: the overall status, one card per check and the per-queue
 * table, polled every few seconds (paused while the tab is hidden) so an operator
 * watching an incident sees it turn without reloading.
 */
export function HealthBoard({ initial, liveUrl }: HealthBoardProps) {
  const q = useLiveQuery<HealthReport>(liveUrl, {
    queryKey: queryKeys.health(),
    initialData: initial,
  });
  // What the tab knows of Redis now wins over a report from before an outage.
  const report = withRedisState(q.data, useRedisState());
  const checks = report.checks.map(toCheckView);
  const queues = queueHealthRows(report);
  return (
    <div className="stack">
      <section className="card" data-testid="health-overall" data-status={report.status} aria-live="polite">
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <div className="row">
            <h2 style={{ margin: 0 }}>Overall</h2>
            <StatusPill status={report.status} />
          </div>
          <LiveStatus updatedAt={q.dataUpdatedAt} error={q.error} fetching={q.isFetching} />
        </div>
        <p data-testid="health-overall-sentence">{overallSentence(report)}</p>
        <p className="small muted">
          Checked <RelativeTime ms={Date.parse(report.checkedAt)} /> · the worst check sets the overall status · probes use{' '}
          <code>GET /api/health</code> (statuses only; 503 when unhealthy) and <code>GET /api/metrics</code>.
        </p>
      </section>
      <div className="grid">
        {checks.map((c) => (
          <HealthCheckCard key={c.name} check={c} />
        ))}
      </div>
      {queues.length > 0 && <HealthQueueTable rows={queues} minWorkersLabel={minWorkersOf(report)} />}
    </div>
  );
}

function minWorkersOf(report: HealthReport): string {
  const d = report.checks.find((c) => c.name === 'workers')?.details as { minWorkers?: unknown } | undefined;
  return typeof d?.minWorkers === 'number' ? String(d.minWorkers) : '—';
}
