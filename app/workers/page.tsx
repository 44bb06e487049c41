import type { Metadata } from 'next';
import { Suspense } from 'react';
import { loadWorkers } from '@/dashboard/reads';
import { requireUser } from '@/dashboard/auth/require-user';
import { WorkersBoard } from '@/components/workers/workers-board';
import { CardSkeleton } from '@/components/ui/skeleton';
import { liveUrls } from '@/dashboard/client/query-keys';

export const metadata: Metadata = { title: 'Workers' };

export default async function WorkersPage() {
  await requireUser('viewer', '/workers');
  return (
    <>
      <div className="page-head">
        <h1>Workers</h1>
        <span className="small muted">Every worker process and what it runs now; refreshes every few seconds.</span>
      </div>
      <Suspense fallback={<CardSkeleton title="Worker processes" rows={4} />}>
        <Board />
      </Suspense>
    </>
  );
}

async function Board() {
  return <WorkersBoard initial={await loadWorkers()} liveUrl={liveUrls.workers()} />;
}
