import Link from 'next/link';
import { deadLettersHref, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import type { DeadLetterList } from '@/dashboard/client/read-models';
import { DEAD_LETTER_STATUSES } from '@/dashboard/client/runtime-shared';

/**
 * Status tabs that keep the other filters. The numbers are per status across every
 * dead letter (O(1) each), the filtered total is beside the table.
 */
export function DeadLetterStatusTabs({ filters, counts }: { filters: DeadLetterFilters; counts: DeadLetterList['counts'] }) {
  const tabs: Array<{ key: string; label: string; status?: DeadLetterFilters['status']; count: number }> = [
    { key: 'all', label: 'All', count: counts.total },
    ...DEAD_LETTER_STATUSES.map((s) => ({ key: s, label: s, status: s, count: counts[s] })),
  ];
  return (
    <nav className="tabs" aria-label="Dead letters by status">
      {tabs.map((t) => (
        <Link
          key={t.key}
          href={deadLettersHref({ ...filters, status: t.status, page: 1 })}
          aria-current={filters.status === t.status ? 'page' : undefined}
          data-testid={`dlq-status-tab-${t.key}`}
          title={`${t.count.toLocaleString('en')} ${t.key === 'all' ? 'dead letters in all' : `${t.key} dead letters in all`}`}
        >
          {t.label}
          <span className="count muted">{t.count.toLocaleString('en')}</span>
        </Link>
      ))}
    </nav>
  );
}
