import Form from 'next/form';
import { PAGE_SIZES, queueHref, type QueueFilters } from '@/dashboard/client/queue-filters';

/** Name and tenant filters as a GET form: the result is a shareable URL. */
export function JobFilters({ queue, filters }: { queue: string; filters: QueueFilters }) {
  const active = filters.name !== undefined || filters.tenant !== undefined;
  return (
    <Form action={`/queues/${encodeURIComponent(queue)}`} className="filters" aria-label="Filter jobs">
      {filters.state !== 'active' && <input type="hidden" name="state" value={filters.state} />}
      <div className="field">
        <label htmlFor="filter-name">Job name</label>
        <input id="filter-name" name="name" defaultValue={filters.name ?? ''} placeholder="exact name" data-testid="filter-name" />
      </div>
      <div className="field">
        <label htmlFor="filter-tenant">Tenant (orgId)</label>
        <input id="filter-tenant" name="tenant" defaultValue={filters.tenant ?? ''} placeholder="e.g. 42" data-testid="filter-tenant" />
      </div>
      <div className="field">
        <label htmlFor="filter-size">Per page</label>
        <select id="filter-size" name="size" defaultValue={String(filters.pageSize)}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="btn" data-testid="filter-apply">
        Apply
      </button>
      {active && (
        <a className="btn btn-ghost" href={queueHref(queue, { state: filters.state, pageSize: filters.pageSize })}>
          Clear filters
        </a>
      )}
    </Form>
  );
}
