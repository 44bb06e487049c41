import type { Metadata } from 'next';
import { Suspense } from 'react';
import { loadWebhookList } from '@/dashboard/reads';
import { requireUser } from '@/dashboard/auth/require-user';
import { firstParam, type RouteProps } from '@/app/_lib/route-props';
import { CardSkeleton } from '@/components/ui/skeleton';
import { WebhookTable } from '@/components/webhooks/webhook-table';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage({ searchParams }: RouteProps) {
  const page = Math.max(1, Number.parseInt(firstParam(await searchParams, 'page') ?? '1', 10) || 1);
  await requireUser('viewer', `/webhooks${page > 1 ? `?page=${page}` : ''}`);
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <span className="small muted">
          Registered endpoints, whether they are on, and the failures that switch them off. URLs are shown without their secrets.
        </span>
      </div>
      <Suspense key={`page-${page}`} fallback={<CardSkeleton title="Webhooks" rows={6} />}>
        <List page={page} />
      </Suspense>
    </>
  );
}

async function List({ page }: { page: number }) {
  return <WebhookTable list={await loadWebhookList(page)} />;
}
