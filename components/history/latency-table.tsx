import Link from 'next/link';
import type { Latency, QueueLatency } from '@/dashboard/client/read-models';
import { formatLatency } from '@/dashboard/client/history-format';
import { type HistoryRange, historyRangeHref } from '@/dashboard/client/history-range';
import { queueHref } from '@/dashboard/client/queue-filters';
import { formatCount, formatPercent } from '@/components/overview/format';
import { Table } from '@/components/ui/table';

const PERCENTILES = ['p50', 'p95', 'p99'] as const;

/**
 * Per queue: jobs completed and failed over the range, and the run-time and wait
 * percentiles from the hourly histograms. `links`: each queue's name opens its page's
 * history over the same range.
 */
export function LatencyTable({
  rows,
  caption,
  links,
  range,
}: {
  rows: QueueLatency[];
  caption: string;
  links: boolean;
  range: HistoryRange;
}) {
  return (
    <Table caption={caption} scrollLabel={links ? undefined : caption} data-testid="history-latency">
      <thead>
        <tr>
          <th scope="col" rowSpan={2}>
            Queue
          </th>
          <th scope="col" rowSpan={2} className="num">
            Completed
          </th>
          <th scope="col" rowSpan={2} className="num">
            Failed
          </th>
          <th scope="colgroup" colSpan={3}>
            Run time
          </th>
          <th scope="colgroup" colSpan={3}>
            Wait
          </th>
        </tr>
        <tr>
          {(['duration', 'wait'] as const).flatMap((kind) =>
            PERCENTILES.map((p) => (
              <th key={`${kind}-${p}`} scope="col" className="num">
                {p}
              </th>
            )),
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((q) => (
          <tr key={q.queue} data-testid="history-latency-row" data-queue={q.queue}>
            <th scope="row" style={{ fontWeight: 500 }}>
              {links ? <Link href={historyRangeHref(queueHref(q.queue), {}, range)}>{q.queue}</Link> : q.queue}
            </th>
            <td className="num">{formatCount(q.completed)}</td>
            <td className="num">
              {formatCount(q.failed)}
              {q.completed + q.failed > 0 && q.failed > 0 && (
                <span className="small muted"> ({formatPercent(q.failed / (q.completed + q.failed))})</span>
              )}
            </td>
            <Percentiles kind="duration" latency={q.duration} unrecorded={!q.recorded && q.completed + q.failed > 0} />
            <Percentiles kind="wait" latency={q.wait} unrecorded={!q.recorded && q.completed + q.failed > 0} />
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** `unrecorded`: the queue ran jobs, but no Bullpen worker wrote their hours (a foreign queue's, or history off). */
function Percentiles({ kind, latency, unrecorded }: { kind: 'duration' | 'wait'; latency: Latency; unrecorded: boolean }) {
  return PERCENTILES.map((p) => (
    <td
      key={p}
      className="num"
      data-testid={`history-${kind}-${p}`}
      data-ms={latency ? Math.round(latency[p].ms) : undefined}
      title={latency ? `${formatCount(latency.count)} ${kind === 'duration' ? 'attempts' : 'first attempts'}` : undefined}
    >
      {latency ? (
        formatLatency(latency[p])
      ) : unrecorded ? (
        <span className="muted" title="No Bullpen worker wrote this queue's hourly history (a foreign queue, or BULLPEN_HISTORY=0)">
          not recorded
        </span>
      ) : (
        <span className="muted">—</span>
      )}
    </td>
  ));
}
