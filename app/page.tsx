import type { Metadata } from 'next';
import { Suspense } from 'react';
import { CardSkeleton } from '@/components/ui/skeleton';
import { OverviewTiles } from '@/components/overview/overview-tiles';
import { QueueTable } from '@/components/overview/queue-table';
import { ThroughputChart } from '@/components/overview/throughput-chart';
import { loadOverview } from '@/app/_lib/reads';
import { requireUser } from '@/app/_lib/require-user';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage() {
  await requireUser('viewer', '/');
  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
      </div>
      <div className="stack">
        <Suspense fallback={<CardSkeleton rows={2} />}>
          <Tiles />
        </Suspense>
        <section className="card" aria-labelledby="throughput-h">
          <h2 id="throughput-h">Throughput</h2>
          <Suspense fallback={<CardSkeleton rows={6} />}>
            <Chart />
          </Suspense>
        </section>
        <section aria-labelledby="queues-h">
          <h2 id="queues-h">Queues</h2>
          <Suspense fallback={<CardSkeleton rows={8} />}>
            <Queues />
          </Suspense>
        </section>
      </div>
    </>
  );
}

// Three widgets, one read: the live cache is single-flight, so they share it.
async function Tiles() {
  return <OverviewTiles initial={await loadOverview()} />;
}
async function Chart() {
  return <ThroughputChart initial={await loadOverview()} />;
}
async function Queues() {
  return <QueueTable initial={await loadOverview()} />;
}
