import type { Metadata } from 'next';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import { CardSkeleton } from '@/components/ui/skeleton';
import { HealthSection } from './health-section';

export const metadata: Metadata = { title: 'Health' };

export default async function HealthPage() {
  await requireUser('viewer', '/health');
  return (
    <>
      <div className="page-head">
        <h1>Health</h1>
        <span className="small muted">Redis, workers, queues and dead letters; refreshes every few seconds.</span>
      </div>
      <Suspense fallback={<CardSkeleton title="Overall" rows={3} />}>
        <HealthSection />
      </Suspense>
    </>
  );
}
