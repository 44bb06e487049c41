'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SeriesPoint } from '@/dashboard/client/chart-series';
import { type HistoryRange, RANGE_SPEC } from '@/dashboard/client/history-range';
import { plural } from '@/dashboard/client/runtime-shared';
import { formatPercent } from '@/components/overview/format';

const HOUR = 3_600_000;

/** An axis tick: the time for the last hour and a day, the weekday and hour for a week, the date for a month. */
function tick(range: HistoryRange, t: number): string {
  const d = new Date(t);
  if (range === '1h' || range === '24h') return d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  if (range === '7d') return d.toLocaleString('en-GB', { weekday: 'short', hour: '2-digit', minute: '2-digit' });
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
}

/** A bar's span in the tooltip: "26 Nov, 14:00 – 15:00". */
function span(t: number, stepMs: number): string {
  const from = new Date(t);
  const to = new Date(t + stepMs);
  const time = (d: Date) => d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  const day = from.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
  return stepMs >= HOUR ? `${day}, ${time(from)} – ${time(to)}` : `${day}, ${time(from)}`;
}

/**
 * Completed and failed jobs per step of a range, stacked. The figure carries the range,
 * the number of bars and the totals as data attributes and in its caption, so what it
 * shows can be read without the picture.
 */
export function HistoryChart({
  series,
  range,
  stepMs,
  subject,
  counted,
}: {
  series: SeriesPoint[];
  range: HistoryRange;
  stepMs: number;
  subject: string;
  /** Where the counts come from, when not BullMQ's metrics (a foreign queue). */
  counted?: { from: 'metrics' | 'finished-jobs'; capped: boolean };
}) {
  const spec = RANGE_SPEC[range];
  const completed = series.reduce((s, p) => s + p.completed, 0);
  const failed = series.reduce((s, p) => s + p.failed, 0);
  const label = `Completed and failed jobs per ${spec.step}, ${spec.long}, ${subject}`;
  return (
    <figure
      style={{ margin: 0 }}
      aria-label={label}
      data-testid="throughput-chart"
      data-range={range}
      data-points={series.length}
      data-completed={completed}
      data-failed={failed}
    >
      <div className="chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={series} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} barCategoryGap={1}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
            <XAxis dataKey="t" tickFormatter={(t) => tick(range, Number(t))} stroke="var(--muted)" fontSize={12} minTickGap={40} />
            <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} />
            <Tooltip
              labelFormatter={(t) => span(Number(t), stepMs)}
              contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }}
            />
            <Legend />
            <Bar dataKey="completed" name="Completed" stackId="a" fill="var(--chart-completed)" isAnimationActive={false} />
            <Bar dataKey="failed" name="Failed" stackId="a" fill="var(--chart-failed)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="small muted" data-testid="history-caption">
        {completed + failed === 0
          ? `No jobs finished in the ${spec.long}.`
          : `${plural(completed + failed, 'job')} finished in the ${spec.long}: ${completed.toLocaleString('en')} completed, ${failed.toLocaleString('en')} failed (${formatPercent(failed / (completed + failed))}).`}
        {counted?.from === 'finished-jobs' &&
          ` Counted from the finished jobs BullMQ still keeps (this queue's workers record no per-minute metrics)${counted.capped ? ', the newest 10,000 per state' : ''}.`}
      </figcaption>
    </figure>
  );
}
