'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import {
  DLQ_PAGE_SIZES,
  SINCE_OPTIONS,
  deadLettersHref,
  formatInstant,
  parseDeadLetterFilters,
  type DeadLetterFilters,
} from '@/dashboard/client/dead-letters-filters';
import { DEAD_LETTER_STATUSES } from '@/dashboard/client/runtime-shared';
import { ERROR_CLASSES } from '@/dashboard/client/runtime-shared';

const SINCE_LABEL: Record<string, string> = {
  '15m': 'last 15 minutes',
  '1h': 'last hour',
  '6h': 'last 6 hours',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};

/**
 * The filters as a GET form: it works without JavaScript (the browser submits the
 * fields), and with it the URL is rebuilt by the same pure serializer the server
 * reads, so links stay short and canonical. Times are UTC, as the page shows them.
 */
export function DeadLetterFiltersForm({
  filters,
  ignored,
  jobTypes,
}: {
  filters: DeadLetterFilters;
  /** The job table's types, offered in the type filter. */
  jobTypes: readonly string[];
  ignored: Array<{ param: string; reason: string }>;
}) {
  const router = useRouter();
  const id = useId();
  const types = filters.type && !jobTypes.includes(filters.type) ? [...jobTypes, filters.type] : jobTypes;

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const params = new URLSearchParams();
    for (const [k, v] of form) if (typeof v === 'string' && v.trim()) params.set(k, v.trim());
    // Through the parser: a value it would drop never reaches the URL.
    const next = parseDeadLetterFilters(params).filters;
    router.push(deadLettersHref({ ...next, page: 1 }));
  }

  return (
    <form
      method="get"
      action="/dead-letters"
      className="card filters"
      onSubmit={onSubmit}
      aria-label="Filter dead letters"
      data-testid="dlq-filters"
    >
      <div className="field">
        <label htmlFor={`${id}-type`}>Job type</label>
        <select id={`${id}-type`} name="type" defaultValue={filters.type ?? ''} data-testid="dlq-filter-type">
          <option value="">any</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-tenant`}>Tenant (orgId)</label>
        <input
          id={`${id}-tenant`}
          name="tenant"
          defaultValue={filters.tenant ?? ''}
          size={12}
          autoComplete="off"
          data-testid="dlq-filter-tenant"
          data-shortcut-search
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-class`}>Error class</label>
        <select id={`${id}-class`} name="class" defaultValue={filters.errorClass ?? ''} data-testid="dlq-filter-class">
          <option value="">any</option>
          {ERROR_CLASSES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-status`}>Status</label>
        <select id={`${id}-status`} name="status" defaultValue={filters.status ?? ''} data-testid="dlq-filter-status">
          <option value="">any</option>
          {DEAD_LETTER_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-since`}>Failed in the</label>
        <select id={`${id}-since`} name="since" defaultValue={filters.since ?? ''} data-testid="dlq-filter-since">
          <option value="">any time (or from…)</option>
          {SINCE_OPTIONS.map((s) => (
            <option key={s} value={s}>
              {SINCE_LABEL[s] ?? s}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-from`}>From (UTC)</label>
        <input
          id={`${id}-from`}
          type="datetime-local"
          name="from"
          step={1}
          defaultValue={filters.from !== undefined ? formatInstant(filters.from).slice(0, 19) : ''}
          data-testid="dlq-filter-from"
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To (UTC)</label>
        <input
          id={`${id}-to`}
          type="datetime-local"
          name="to"
          step={1}
          defaultValue={filters.to !== undefined ? formatInstant(filters.to).slice(0, 19) : ''}
          data-testid="dlq-filter-to"
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-size`}>Per page</label>
        <select id={`${id}-size`} name="size" defaultValue={String(filters.pageSize)} data-testid="dlq-filter-size">
          {DLQ_PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div className="row">
        <Button type="submit" variant="primary" data-testid="dlq-filter-apply">
          Apply
        </Button>
        <Link href="/dead-letters" className="btn" data-testid="dlq-filter-clear">
          Clear
        </Link>
      </div>
      {ignored.length > 0 && (
        <p className="result info small" role="status" data-testid="dlq-ignored" style={{ flexBasis: '100%' }}>
          Ignored from the link: {ignored.map((i) => `${i.param} (${i.reason})`).join('; ')}.
        </p>
      )}
    </form>
  );
}
