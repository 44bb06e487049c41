import Link from 'next/link';
import { JOB_STATES, type JobStateName } from '@/dashboard/client/job-states';
import { queueHref, type QueueFilters } from '@/dashboard/client/queue-filters';
import type { StateCounts } from '@/dashboard/client/read-models';

/** One tab per state with its count; switching state keeps the filters and resets the page. */
export function StateTabs({ queue, filters, counts }: { queue: string; filters: QueueFilters; counts: StateCounts }) {
  return (
    <nav aria-label="Job states">
      <div className="tabs">
        {JOB_STATES.map((s: JobStateName) => (
          <Link
            key={s}
            href={queueHref(queue, { ...filters, state: s, page: 1 })}
            aria-current={s === filters.state ? 'page' : undefined}
            data-testid={`queue-state-tab-${s}`}
          >
            {s}
            <span className="count badge tone-neutral">{counts[s].toLocaleString('en')}</span>
          </Link>
        ))}
      </div>
    </nav>
  );
}
