'use client';

import { useLiveQuery } from '@/components/live/use-live-query';
import type { OverallHistory, QueueHistory } from '@/dashboard/client/read-models';
import { RANGE_SPEC } from '@/dashboard/client/history-range';
import { HISTORY_REFETCH_MS, LIVE_REFETCH_MS, liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { LiveStatus } from '@/components/live/live-status';
import { HistoryChart } from './history-chart';
import { LatencyTable } from './latency-table';

type Props = { queue: string; initial: QueueHistory } | { queue: null; initial: OverallHistory };

/**
 * The history of one queue (`queue`) or of every queue (null) over the URL's range: the
 * throughput and failure chart and the run-time and wait percentiles, refreshed every 3 s
 * for the last hour and every HISTORY_REFETCH_MS for the hourly ranges, whose data moves
 * with the worker's flushes.
 */
export function HistoryPanel(props: Props) {
  const range = props.initial.range;
  const url = props.queue === null ? liveUrls.history(range) : liveUrls.queueHistory(props.queue, range);
  const { data, error, dataUpdatedAt, isFetching } = useLiveQuery<QueueHistory | OverallHistory>(url, {
    queryKey: queryKeys.history(props.queue, range),
    initialData: props.initial,
    initialDataUpdatedAt: props.initial.generatedAt,
    refetchInterval: range === '1h' ? LIVE_REFETCH_MS : HISTORY_REFETCH_MS,
  });
  const since = new Date(data.latencySince).toISOString().slice(0, 16).replace('T', ' ');
  const period = range === '1h' ? `this hour and the last (since ${since} UTC)` : `the ${RANGE_SPEC[range].long} (since ${since} UTC)`;
  const rows = 'latency' in data ? [data.latency] : data.queues;
  return (
    <div className="stack" data-testid="history-panel" data-range={range}>
      <div className="row" style={{ justifyContent: 'flex-end' }}>
        <LiveStatus updatedAt={dataUpdatedAt} error={error} fetching={isFetching} />
      </div>
      <HistoryChart
        series={data.series}
        range={range}
        stepMs={data.stepMs}
        subject={props.queue ?? 'all queues'}
        counted={'counted' in data ? data.counted : undefined}
      />
      <LatencyTable
        rows={rows}
        links={props.queue === null}
        range={range}
        caption={`Jobs, run time (per attempt) and wait (first attempts, from when a job could run to its start) over ${period}; percentiles from hourly histograms, within 26 %`}
      />
    </div>
  );
}
