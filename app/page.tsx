import type { Metadata } from 'next';
import { Suspense } from 'react';
import { CardSkeleton } from '@/components/ui/skeleton';
import { OverviewTiles } from '@/components/overview/overview-tiles';
import { QueueTable } from '@/components/overview/queue-table';
import { HistoryPanel } from '@/components/history/history-panel';
import { HistorySection } from '@/components/history/history-section';
import { ForeignQueueTable } from '@/components/overview/foreign-queue-table';
import { loadForeignQueues, loadOverallHistory, loadOverview } from '@/dashboard/reads';
import { requireUser } from '@/dashboard/auth/require-user';
import type { RouteProps } from '@/app/_lib/route-props';
import { type HistoryRange, parseHistoryRange } from '@/dashboard/client/history-range';

// The root page shares the root layout's segment, where the layout's title template does not apply.
export const metadata: Metadata = { title: { absolute: 'Overview · Bullpen' } };

export default async function OverviewPage({ searchParams }: RouteProps) {
  await requireUser('viewer', '/');
  const sp = await searchParams;
  const { range, ignored } = parseHistoryRange(sp.range);
  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
      </div>
      <div className="stack">
        <Suspense fallback={<CardSkeleton rows={2} />}>
          <Tiles />
        </Suspense>
        <HistorySection title="Throughput" pathname="/" params={sp} range={range} ignored={ignored}>
          <Suspense key={range} fallback={<CardSkeleton rows={6} />}>
            <History range={range} />
          </Suspense>
        </HistorySection>
        <section aria-labelledby="queues-h">
          <h2 id="queues-h">Queues</h2>
          <Suspense fallback={<CardSkeleton rows={8} />}>
            <Queues />
          </Suspense>
        </section>
        <Suspense fallback={null}>
          <Foreign />
        </Suspense>
      </div>
    </>
  );
}

// Two widgets, one read: the live cache is single-flight, so they share it.
async function Tiles() {
  return <OverviewTiles initial={await loadOverview()} />;
}
async function History({ range }: { range: HistoryRange }) {
  return <HistoryPanel queue={null} initial={await loadOverallHistory(range)} />;
}
async function Queues() {
  return <QueueTable initial={await loadOverview()} />;
}
/** Other BullMQ queues under the configured prefixes (found by a bounded SCAN, reused 30 s): shown when there are any. */
async function Foreign() {
  const foreign = await loadForeignQueues();
  return foreign.queues.length > 0 ? <ForeignQueueTable data={foreign} /> : null;
}
