'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Overview } from '@/lib/dashboard/queue-overview';
import type { SeriesPoint } from '@/lib/dashboard/chart-series';
import { useOverview } from './use-overview';
import { plural } from '@/lib/dashboard/plural';

const time = (t: number) => new Date(t).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

/** Completed and failed jobs per minute over the last hour, all queues. */
export function ThroughputChart({ initial }: { initial: Overview }) {
  const { data } = useOverview(initial);
  return <SeriesChart series={data.series} label="Completed and failed jobs per minute, last hour, all queues" />;
}

export function SeriesChart({ series, label }: { series: SeriesPoint[]; label: string }) {
  const total = series.reduce((s, p) => s + p.completed + p.failed, 0);
  return (
    <figure className="chart" style={{ margin: 0 }} aria-label={label} data-testid="throughput-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={series} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} barCategoryGap={1}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis dataKey="t" tickFormatter={time} stroke="var(--muted)" fontSize={12} minTickGap={40} />
          <YAxis allowDecimals={false} stroke="var(--muted)" fontSize={12} />
          <Tooltip
            labelFormatter={(t) => time(Number(t))}
            contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }}
          />
          <Legend />
          <Bar dataKey="completed" name="Completed" stackId="a" fill="var(--chart-completed)" isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="a" fill="var(--chart-failed)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="small muted">
        {total === 0 ? 'No jobs finished in the last hour.' : `${plural(total, 'job')} finished in the last hour.`}
      </figcaption>
    </figure>
  );
}
