import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import type { RouteProps } from '@/app/_lib/route-props';
import { readyBullpen } from '@/dashboard/dashboard-process';
import { STREAM_ID } from '@/dashboard/client/audit-filters';
import { SignInFailuresTable } from '@/components/audit/sign-in-failures-table';
import { CardSkeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Refused sign-ins' };

const PAGE_SIZE = 50;

export default async function SignInFailuresPage({ searchParams }: RouteProps) {
  const raw = (await searchParams).before;
  const before = typeof raw === 'string' && STREAM_ID.test(raw) ? raw : undefined;
  await requireUser('viewer', `/audit/sign-in-failures${before ? `?before=${before}` : ''}`);
  return (
    <>
      <div className="page-head">
        <h1>Refused sign-ins</h1>
        <span className="muted small">One row per client per minute, newest first. Times are UTC.</span>
      </div>
      <Suspense key={before ?? 'first'} fallback={<CardSkeleton rows={12} />}>
        <Rows before={before} />
      </Suspense>
    </>
  );
}

async function Rows({ before }: { before?: string }) {
  const bullpen = await readyBullpen();
  const { rows, next } = await bullpen.signInFailures.page({ limit: PAGE_SIZE, before });
  const days = Math.round(bullpen.signInFailures.retentionMs / 86_400_000);
  return (
    <div className="stack">
      <p className="muted small">Kept {days} days (SIGN_IN_FAILURES_RETENTION_DAYS).</p>
      <SignInFailuresTable rows={rows} caption="Refused sign-ins per client per minute, newest first" />
      <nav aria-label="Refused sign-in pages" className="row">
        <Link href="/audit" className="btn btn-sm">
          « Audit log
        </Link>
        {before && (
          <Link href="/audit/sign-in-failures" className="btn btn-sm">
            « Newest
          </Link>
        )}
        {next && (
          <Link href={`/audit/sign-in-failures?before=${next}`} className="btn btn-sm" data-testid="sign-in-failures-older">
            Older ›
          </Link>
        )}
      </nav>
    </div>
  );
}
