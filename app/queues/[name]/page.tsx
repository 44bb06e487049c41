import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { requireUser } from '@/app/_lib/require-user';
import { loadQueueCounts, loadQueuePage } from '@/app/_lib/reads';
import { decodeSegment, type RouteProps } from '@/app/_lib/route-props';
import { roleAtLeast } from '@/lib/auth/roles';
import { hasStateParam, landingState, parseQueueFilters, serializeQueueFilters, type QueueFilters } from '@/lib/dashboard/queue-filters';
import { OpenJobForm } from '@/components/queue/open-job-form';
import { QueueView } from '@/components/queue/queue-view';
import { CardSkeleton } from '@/components/ui/skeleton';
import { retryJob } from './jobs/[id]/actions';
import {
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
import { getBullpen } from '@/app/_lib/bullpen';

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
  if (!getBullpen().jobs.has(name)) notFound();
  const sp = await searchParams;
  const parsed = parseQueueFilters(sp);
  // Without a tab in the URL, open where attention is needed: failed, then waiting, then active.
  const filters = hasStateParam(sp) ? parsed : { ...parsed, state: landingState(await loadQueueCounts(name)) };
  return (
    <>
      <div className="breadcrumbs">
        <Link href="/queues">Queues</Link> /
      </div>
      <div className="page-head">
        <h1>{name}</h1>
        <OpenJobForm queue={name} />
      </div>
      <Suspense key={serializeQueueFilters(filters) + filters.state} fallback={<CardSkeleton rows={10} />}>
        <Jobs name={name} filters={filters} canOperate={roleAtLeast(user.role, 'operator')} canAdmin={roleAtLeast(user.role, 'admin')} />
      </Suspense>
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
