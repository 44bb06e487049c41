import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import { loadQueueCounts, loadQueueHistory, loadQueuePage, queueExists } from '@/dashboard/reads';
import { decodeSegment, type RouteProps } from '@/app/_lib/route-props';
import { roleAtLeast } from '@/dashboard/auth/roles';
import { hasStateParam, landingState, parseQueueFilters, serializeQueueFilters, type QueueFilters } from '@/dashboard/client/queue-filters';
import { addJobDefaults } from '@/dashboard/client/add-job-form';
import { AddJobPanel } from '@/components/queue/add-job-panel';
import { OpenJobForm } from '@/components/queue/open-job-form';
import { AddRawJobPanel } from '@/components/queue/add-raw-job-panel';
import { QueueView } from '@/components/queue/queue-view';
import { CardSkeleton } from '@/components/ui/skeleton';
import { HistoryPanel } from '@/components/history/history-panel';
import { HistorySection } from '@/components/history/history-section';
import { type HistoryRange, parseHistoryRange } from '@/dashboard/client/history-range';
import { retryJob } from './jobs/[id]/actions';
import {
  addJob,
  addRawJob,
  cleanQueue,
  pauseQueue,
  promoteAllDelayed,
  removeGlobalConcurrency,
  removeGlobalRateLimit,
  resumeQueue,
  retryAllFailed,
  retrySelectedJobs,
  setGlobalConcurrency,
  setGlobalRateLimit,
} from './actions';
import { getBullpen } from '@/dashboard/dashboard-process';

export async function generateMetadata({ params }: RouteProps<{ name: string }>): Promise<Metadata> {
  return { title: decodeSegment((await params).name) };
}

const actions = {
  pause: pauseQueue,
  resume: resumeQueue,
  retrySelected: retrySelectedJobs,
  retryAll: retryAllFailed,
  promoteAll: promoteAllDelayed,
  clean: cleanQueue,
  setConcurrency: setGlobalConcurrency,
  removeConcurrency: removeGlobalConcurrency,
  setRateLimit: setGlobalRateLimit,
  removeRateLimit: removeGlobalRateLimit,
  retryJob,
};

export default async function QueuePage({ params, searchParams }: RouteProps<{ name: string }>) {
  const name = decodeSegment((await params).name);
  const user = await requireUser('viewer', `/queues/${encodeURIComponent(name)}`);
  if (!(await queueExists(name))) notFound();
  const bullpen = getBullpen();
  const canOperate = roleAtLeast(user.role, 'operator');
  const sp = await searchParams;
  const parsed = parseQueueFilters(sp);
  // Without a tab in the URL, open where attention is needed: failed, then waiting, then active.
  const filters = hasStateParam(sp) ? parsed : { ...parsed, state: landingState(await loadQueueCounts(name)) };
  const { range, ignored } = parseHistoryRange(sp.range);
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/queues">Queues</Link> /
      </div>
      <div className="page-head">
        {/* A foreign queue's reference is `<prefix>~<name>`: the name leads, the prefix follows. */}
        <h1>
          {name.includes('~') ? name.slice(name.indexOf('~') + 1) : name}
          {name.includes('~') && <span className="small muted mono"> {name.slice(0, name.indexOf('~'))}</span>}
        </h1>
        <OpenJobForm queue={name} />
      </div>
      {/* A foreign queue takes its jobs as raw JSON; the table's own queues through their schema. */}
      {canOperate && !bullpen.jobs.has(name) && <AddRawJobPanel queue={name} add={addRawJob} />}
      {canOperate && bullpen.jobs.has(name) && <AddJob name={name} canAdmin={roleAtLeast(user.role, 'admin')} />}
      <Suspense key={serializeQueueFilters(filters) + filters.state} fallback={<CardSkeleton rows={10} />}>
        <Jobs name={name} filters={filters} canOperate={canOperate} canAdmin={roleAtLeast(user.role, 'admin')} />
      </Suspense>
      <HistorySection title="History" pathname={`/queues/${encodeURIComponent(name)}`} params={sp} range={range} ignored={ignored}>
        <Suspense key={range} fallback={<CardSkeleton rows={6} />}>
          <History name={name} range={range} />
        </Suspense>
      </HistorySection>
    </>
  );
}

async function Jobs({
  name,
  filters,
  canOperate,
  canAdmin,
}: {
  name: string;
  filters: QueueFilters;
  canOperate: boolean;
  canAdmin: boolean;
}) {
  const initial = await loadQueuePage(name, filters);
  return <QueueView initial={initial} filters={filters} canOperate={canOperate} canAdmin={canAdmin} actions={actions} />;
}

/**
 * The add-job form, where the viewer may use it: a type that destroys data is an admin's
 * to start (dashboard/jobs/job-start-rules.ts), so an operator is told so instead of
 * being handed a form the server would refuse.
 */
function AddJob({ name, canAdmin }: { name: string; canAdmin: boolean }) {
  const bullpen = getBullpen();
  const defaults = addJobDefaults(bullpen.jobs, name, bullpen.dispatcher.handles(name));
  if (defaults.destructive && !canAdmin) {
    return (
      <p className="small muted" data-testid="add-job-admin-only">
        {name} destroys data: only an admin may add one from the dashboard.
      </p>
    );
  }
  return <AddJobPanel queue={name} defaults={defaults} add={addJob} />;
}

async function History({ name, range }: { name: string; range: HistoryRange }) {
  return <HistoryPanel queue={name} initial={await loadQueueHistory(name, range)} />;
}
