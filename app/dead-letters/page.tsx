import { getBullpen } from '@/dashboard/dashboard-process';
import type { Metadata } from 'next';
import { Suspense } from 'react';
import { requireUser } from '@/dashboard/auth/require-user';
import type { RouteProps } from '@/app/_lib/route-props';
import { DeadLetterFiltersForm } from '@/components/dead-letters/dead-letter-filters-form';
import { DeadLetterTable } from '@/components/dead-letters/dead-letter-table';
import type { DeadLetterActions } from '@/components/dead-letters/dlq-actions';
import { CardSkeleton } from '@/components/ui/skeleton';
import { roleAtLeast, type Role } from '@/dashboard/auth/roles';
import { parseDeadLetterFilters, serializeDeadLetterFilters, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import {
  discardDeadLetter,
  discardSelectedDeadLetters,
  purgeDeadLetters,
  replayAllDeadLetters,
  replayDeadLetter,
  replaySelectedDeadLetters,
} from './actions';
import { loadDeadLetterList } from '@/dashboard/reads';
import { liveUrls } from '@/dashboard/client/query-keys';
import { destructiveTypes } from '@/dashboard/jobs/job-start-rules';

export const metadata: Metadata = { title: 'Dead letters' };

export default async function DeadLettersPage({ searchParams }: RouteProps) {
  const { filters, ignored } = parseDeadLetterFilters(await searchParams);
  const search = serializeDeadLetterFilters(filters);
  const user = await requireUser('viewer', `/dead-letters${search ? `?${search}` : ''}`);
  return (
    <>
      <div className="page-head">
        <h1>Dead letters</h1>
        <span className="small muted">
          Jobs that failed for good. Times are UTC; filters live in the URL, so a link shows the same list.
        </span>
      </div>
      <div className="stack">
        <DeadLetterFiltersForm key={`filters?${search}`} filters={filters} ignored={ignored} jobTypes={getBullpen().jobs.names} />
        <Suspense key={`list?${search}`} fallback={<CardSkeleton title="Dead letters" rows={10} />}>
          <List filters={filters} search={search} role={user.role} />
        </Suspense>
      </div>
    </>
  );
}

async function List({ filters, search, role }: { filters: DeadLetterFilters; search: string; role: Role }) {
  return (
    <DeadLetterTable
      initial={await loadDeadLetterList(filters)}
      filters={filters}
      search={search}
      liveUrl={liveUrls.deadLetters(search)}
      actions={actionsFor(role)}
      destructiveTypes={destructiveTypes(getBullpen().jobs)}
      canConfirm={roleAtLeast(role, 'admin')}
    />
  );
}

/** The actions a role may see: none for viewers, the admin ones only for admins (each action checks again). */
function actionsFor(role: Role): DeadLetterActions | undefined {
  if (!roleAtLeast(role, 'operator')) return undefined;
  const operator: DeadLetterActions = {
    replay: replayDeadLetter,
    discard: discardDeadLetter,
    replaySelected: replaySelectedDeadLetters,
    replayAll: replayAllDeadLetters,
  };
  return roleAtLeast(role, 'admin') ? { ...operator, discardSelected: discardSelectedDeadLetters, purge: purgeDeadLetters } : operator;
}
