import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { requireUser } from '@/app/_lib/require-user';
import { firstParam, type RouteProps } from '@/app/_lib/route-props';
import { readyBullpen } from '@/app/_lib/bullpen';
import { readAuditPage } from '@/lib/dashboard/audit-page';
import { AuditTable } from '@/components/audit/audit-table';
import { CardSkeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditPage({ searchParams }: RouteProps) {
  await requireUser('viewer', '/audit');
  const before = firstParam(await searchParams, 'before');
  return (
    <>
      <div className="page-head">
        <h1>Audit log</h1>
        <span className="muted small">Who did what, newest first</span>
      </div>
      <Suspense key={before ?? 'first'} fallback={<CardSkeleton rows={12} />}>
        <Entries before={before} />
      </Suspense>
    </>
  );
}

async function Entries({ before }: { before?: string }) {
  const page = await readAuditPage(await readyBullpen(), before);
  return (
    <div className="stack">
      <AuditTable entries={page.entries} />
      <nav aria-label="Audit pages" className="row">
        {page.before && (
          <Link href="/audit" className="btn btn-sm" data-testid="audit-newest">
            « Newest
          </Link>
        )}
        {page.next && (
          <Link href={`/audit?before=${encodeURIComponent(page.next)}`} className="btn btn-sm" data-testid="audit-older">
            Older ›
          </Link>
        )}
      </nav>
    </div>
  );
}
