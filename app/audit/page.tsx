import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import type { RouteProps } from '@/app/_lib/route-props';
import { readyBullpen } from '@/dashboard/dashboard-process';
import {
  type AuditFilters,
  auditHref,
  describeAuditFilters,
  parseAuditFilters,
  serializeAuditFilters,
} from '@/dashboard/client/audit-filters';
import { readAuditFacets, readAuditPage } from '@/dashboard/audit/audit-page';
import { plural } from '@/lib/text/plural';
import { formatInstant } from '@/dashboard/client/dead-letters-filters';
import { AuditFiltersForm } from '@/components/audit/audit-filters-form';
import { AuditTable } from '@/components/audit/audit-table';
import { SignInFailuresTable } from '@/components/audit/sign-in-failures-table';
import { CardSkeleton } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditPage({ searchParams }: RouteProps) {
  const { filters, ignored } = parseAuditFilters(await searchParams);
  const search = serializeAuditFilters(filters);
  await requireUser('viewer', `/audit${search ? `?${search}` : ''}`);
  const facets = await readAuditFacets(await readyBullpen());
  const { before: _cursor, ...withoutCursor } = filters;
  return (
    <>
      <div className="page-head">
        <h1>Audit log</h1>
        <span className="muted small">Who did what, newest first. Times are UTC; filters live in the URL.</span>
      </div>
      <div className="stack">
        <AuditFiltersForm
          key={`filters?${serializeAuditFilters(withoutCursor)}`}
          filters={filters}
          ignored={ignored}
          actors={facets.actors}
          actions={facets.actions}
        />
        <Suspense key={search || 'first'} fallback={<CardSkeleton rows={12} />}>
          <Entries filters={filters} />
        </Suspense>
        <section className="stack" aria-labelledby="sign-in-failures-heading">
          <h2 id="sign-in-failures-heading">Refused sign-ins</h2>
          <p className="muted small">
            Counted per client per minute, apart from the entries above, so anonymous traffic never pushes an operator’s action out.
          </p>
          <Suspense fallback={<CardSkeleton rows={5} />}>
            <RecentSignInFailures />
          </Suspense>
        </section>
      </div>
    </>
  );
}

/** The newest client-minutes of refused sign-ins; the full list pages on its own. */
async function RecentSignInFailures() {
  const { rows, next } = await (await readyBullpen()).signInFailures.page({ limit: 10 });
  return (
    <div className="stack">
      <SignInFailuresTable rows={rows} caption="Refused sign-ins per client per minute, newest first" />
      {next && (
        <Link href="/audit/sign-in-failures" className="btn btn-sm" data-testid="sign-in-failures-more">
          All refused sign-ins ›
        </Link>
      )}
    </div>
  );
}

async function Entries({ filters }: { filters: AuditFilters }) {
  const page = await readAuditPage(await readyBullpen(), filters);
  const { before, ...rest } = filters;
  return (
    <div className="stack">
      {page.filtered && (
        <p className="small muted" role="status" data-testid="audit-summary">
          {plural(page.entries.length, 'entry', 'entries')} {describeAuditFilters(rest)}
          {page.scannedBackTo !== undefined &&
            ` in the ${page.scanned.toLocaleString('en-US')} entries read back to ${formatInstant(page.scannedBackTo)} UTC; older ones may match`}
          .
        </p>
      )}
      {page.entries.length === 0 && page.filtered ? (
        <p className="card muted" data-testid="audit-no-match">
          No entry matches {describeAuditFilters(rest)}
          {page.exhausted ? '.' : ' among those read so far.'}
        </p>
      ) : (
        <AuditTable entries={page.entries} />
      )}
      <nav aria-label="Audit pages" className="row">
        {before && (
          <Link href={auditHref(rest)} className="btn btn-sm" data-testid="audit-newest">
            « Newest
          </Link>
        )}
        {page.next && (
          <Link href={auditHref({ ...rest, before: page.next })} className="btn btn-sm" data-testid="audit-older">
            {page.scannedBackTo !== undefined && page.entries.length === 0 ? 'Search older ›' : 'Older ›'}
          </Link>
        )}
      </nav>
    </div>
  );
}
