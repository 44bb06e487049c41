import type { Metadata } from 'next';
import { Suspense } from 'react';
import { CardSkeleton } from '@/components/ui/skeleton';
import { QueueTable } from '@/components/overview/queue-table';
import { ForeignQueueTable } from '@/components/overview/foreign-queue-table';
import { OpenJobForm } from '@/components/queue/open-job-form';
import { getBullpen } from '@/dashboard/dashboard-process';
import { loadForeignQueues, loadOverview } from '@/dashboard/reads';
import { requireUser } from '@/dashboard/auth/require-user';

export const metadata: Metadata = { title: 'Queues' };

export default async function QueuesPage() {
  await requireUser('viewer', '/queues');
  return (
    <>
      <div className="page-head">
        <h1>Queues</h1>
        <OpenJobForm queues={getBullpen().jobs.names} />
      </div>
      <Suspense fallback={<CardSkeleton rows={10} />}>
        <Queues />
      </Suspense>
    </>
  );
}

async function Queues() {
  const [overview, foreign] = await Promise.all([loadOverview(), loadForeignQueues()]);
  return (
    <div className="stack">
      <QueueTable initial={overview} />
      <ForeignQueueTable data={foreign} />
    </div>
  );
}
