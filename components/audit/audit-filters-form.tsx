'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { type AuditFilters, auditHref, parseAuditFilters } from '@/dashboard/client/audit-filters';
import { SINCE_OPTIONS, formatInstant } from '@/dashboard/client/dead-letters-filters';

const SINCE_LABEL: Record<string, string> = {
  '15m': 'last 15 minutes',
  '1h': 'last hour',
  '6h': 'last 6 hours',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};

/** `dlq.replay`, `dlq.discard` → also offer the groups `dlq`, so one pick finds every `dlq.*`. */
function withGroups(actions: string[]): string[] {
  const groups = new Set(actions.map((a) => a.split('.')[0]).filter((g): g is string => Boolean(g)));
  return [...new Set([...actions, ...groups])];
}

/**
 * The audit filters as a GET form: it works without JavaScript, and with it the URL is
 * rebuilt by the parser the server uses, so links stay canonical. A new search starts
 * from the newest entry (the cursor is dropped). Times are UTC, as the page shows them.
 */
export function AuditFiltersForm({
  filters,
  ignored,
  actors,
  actions,
}: {
  filters: AuditFilters;
  ignored: Array<{ param: string; reason: string }>;
  /** Actors and actions seen in the newest entries, offered as suggestions. */
  actors: string[];
  actions: string[];
}) {
  const router = useRouter();
  const id = useId();

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === 'string' && v.trim()) params.set(k, v.trim());
    const { before: _cursor, ...next } = parseAuditFilters(params).filters;
    router.push(auditHref(next));
  }

  return (
    <form
      method="get"
      action="/audit"
      className="card filters"
      onSubmit={onSubmit}
      aria-label="Filter the audit log"
      data-testid="audit-filters"
    >
      <div className="field">
        <label htmlFor={`${id}-actor`}>Who</label>
        <input
          id={`${id}-actor`}
          name="actor"
          list={`${id}-actors`}
          defaultValue={filters.actor ?? ''}
          size={14}
          autoComplete="off"
          placeholder="alice, cli:…"
          data-testid="audit-filter-actor"
          data-shortcut-search
        />
        <datalist id={`${id}-actors`}>
          {actors.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor={`${id}-action`}>Action</label>
        <input
          id={`${id}-action`}
          name="action"
          list={`${id}-actions`}
          defaultValue={filters.action ?? ''}
          size={18}
          autoComplete="off"
          placeholder="dlq.replay or dlq"
          data-testid="audit-filter-action"
        />
        <datalist id={`${id}-actions`}>
          {withGroups(actions).map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor={`${id}-target`}>Target contains</label>
        <input
          id={`${id}-target`}
          name="target"
          defaultValue={filters.target ?? ''}
          size={18}
          autoComplete="off"
          placeholder="dead-letter:, queue name…"
          data-testid="audit-filter-target"
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-since`}>In the</label>
        <select id={`${id}-since`} name="since" defaultValue={filters.since ?? ''} data-testid="audit-filter-since">
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
          data-testid="audit-filter-from"
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
          data-testid="audit-filter-to"
        />
      </div>
      <div className="row">
        <Button type="submit" variant="primary" data-testid="audit-filter-apply">
          Apply
        </Button>
        <Link href="/audit" className="btn" data-testid="audit-filter-clear">
          Clear
        </Link>
      </div>
      {ignored.length > 0 && (
        <p className="result info small" role="status" data-testid="audit-ignored" style={{ flexBasis: '100%' }}>
          Ignored from the link: {ignored.map((i) => `${i.param} (${i.reason})`).join('; ')}.
        </p>
      )}
    </form>
  );
}
