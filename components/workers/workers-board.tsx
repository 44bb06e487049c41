'use client';

import { useLiveQuery } from '@/components/live/use-live-query';
import Link from 'next/link';
import { LiveStatus } from '@/components/live/live-status';
import { Badge, StatusPill } from '@/components/ui/badge';
import { ProgressBar } from '@/components/ui/progress-bar';
import { RelativeTime } from '@/components/ui/relative-time';
import { Table } from '@/components/ui/table';
import { plural } from '@/dashboard/client/runtime-shared';
import { queryKeys } from '@/dashboard/client/query-keys';
import { jobPageHref } from '@/dashboard/client/schedules-view';
import type { WorkersView } from '@/dashboard/client/read-models';

/** 75 s, 3 min 5 s, 1 h 2 min: how long a job has been running. */
function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * Every worker process and what it runs now (Sidekiq's Busy, Oban's Instances),
 * refreshed every few seconds: a process that stopped beating, a job running past its
 * time limit, and active jobs whose lock lapsed (stalled) stand out.
 */
export function WorkersBoard({ initial, liveUrl }: { initial: WorkersView; liveUrl: string }) {
  const q = useLiveQuery<WorkersView>(liveUrl, {
    queryKey: queryKeys.workers(),
    initialData: initial,
  });
  const view = q.data;
  const running = view.processes.flatMap((p) => p.running.map((r) => ({ ...r, process: p.id })));
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <span data-testid="workers-summary">
          {plural(view.processes.length, 'worker process', 'worker processes')}, {plural(running.length, 'job')} running
        </span>
        <LiveStatus updatedAt={q.dataUpdatedAt} error={q.error} fetching={q.isFetching} />
      </div>
      {view.attention.length > 0 && (
        <section className="card" aria-labelledby="attention-h" data-testid="workers-attention">
          <h2 id="attention-h">Needs a look</h2>
          <ul>
            {view.attention.map((a) => (
              <li key={`${a.queue}/${a.jobId}`} data-testid="workers-attention-row" data-why={a.why}>
                <Badge tone={a.why === 'stalled' ? 'danger' : 'warn'}>{a.why}</Badge>{' '}
                <Link href={jobPageHref(a.queue, a.jobId)} className="mono">
                  {a.queue} / {a.jobId}
                </Link>{' '}
                <span className="small muted">
                  {a.why === 'stalled'
                    ? 'active, but its worker stopped renewing the lock: BullMQ’s stalled check will run it again'
                    : 'still active well past its time limit'}
                  {a.processedAt ? '; started ' : ''}
                  {a.processedAt ? <RelativeTime ms={a.processedAt} /> : null}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Table caption="Worker processes" scrollLabel="Worker processes" data-testid="workers-processes">
        <thead>
          <tr>
            <th scope="col">Process</th>
            <th scope="col">Queues (concurrency)</th>
            <th scope="col">Started</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col" className="num">
              Running
            </th>
          </tr>
        </thead>
        <tbody>
          {view.processes.length === 0 && (
            <tr>
              <td colSpan={5} className="muted" data-testid="workers-none">
                No worker process has written a heartbeat in the last minute.
              </td>
            </tr>
          )}
          {view.processes.map((p) => (
            <tr key={p.id} data-testid="workers-process" data-id={p.id} data-stale={p.stale || undefined}>
              <td>
                <span className="mono">
                  {p.host} · pid {p.pid}
                </span>
              </td>
              <td className="small">{p.queues.map((q) => `${q.type} (${q.concurrency})`).join(', ') || '—'}</td>
              <td>
                <RelativeTime ms={p.startedAt} />
              </td>
              <td>
                <span className="row" style={{ flexWrap: 'nowrap' }}>
                  <RelativeTime ms={p.heartbeatAt} />
                  {p.stale && <StatusPill status="unhealthy" />}
                </span>
              </td>
              <td className="num">{p.runningTotal}</td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Table caption="Running now" scrollLabel="Jobs running now" data-testid="workers-running">
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Tenant</th>
            <th scope="col">Progress</th>
            <th scope="col">Running for</th>
            <th scope="col">Process</th>
          </tr>
        </thead>
        <tbody>
          {running.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                Nothing running.
              </td>
            </tr>
          )}
          {running.map((r) => (
            <tr key={`${r.type}/${r.jobId}`} data-testid="workers-running-row" data-job-id={r.jobId} data-stuck={r.stuck || undefined}>
              <td>
                <Link href={jobPageHref(r.type, r.jobId)} className="mono">
                  {r.type} / {r.jobId}
                </Link>
                {r.attempt > 1 && <span className="small muted"> attempt {r.attempt}</span>}
              </td>
              <td className="mono">{r.tenant ? `${r.tenant.orgId}${r.tenant.workspaceId ? `/${r.tenant.workspaceId}` : ''}` : '—'}</td>
              <td>
                {r.progress ? <ProgressBar value={r.progress.percent} label={r.progress.phase} testId="workers-running-progress" /> : '—'}
              </td>
              <td>
                {duration(r.runningMs)} {r.stuck && <Badge tone="danger">past its time limit</Badge>}
              </td>
              <td className="mono small">{r.process}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
