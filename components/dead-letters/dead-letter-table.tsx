'use client';

import { useLiveQuery } from '@/components/live/use-live-query';
import { useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useState } from 'react';
import { LiveStatus } from '@/components/live/live-status';
import { useHeldRows } from '@/components/live/use-held-rows';
import { RESULTS_ID } from '@/components/layout/results-id';
import { useRowShortcuts } from '@/components/keyboard/row-shortcuts';
import { ConfirmPrompt, type ConfirmRequest } from '@/components/ui/confirm-prompt';
import { Pagination } from '@/components/ui/pagination';
import { Table } from '@/components/ui/table';
import { HeldList } from '@/components/live/held-list';
import {
  deadLettersHref,
  serializeDeadLetterFilters,
  withoutPaging,
  type DeadLetterFilters,
} from '@/dashboard/client/dead-letters-filters';
import type { DeadLetterList } from '@/dashboard/client/read-models';
import { plural } from '@/dashboard/client/runtime-shared';
import { exportUrls, queryKeys } from '@/dashboard/client/query-keys';
import { ExportLinks } from '@/components/export/export-links';
import { DeadLetterBulkPanel } from './dead-letter-bulk-panel';
import { DeadLetterRow } from './dead-letter-row';
import { DeadLetterSelectionBar } from './dead-letter-selection-bar';
import { DeadLetterStatusTabs } from './dead-letter-status-tabs';
import type { DeadLetterActions } from './dlq-actions';

export interface DeadLetterTableProps {
  initial: DeadLetterList;
  filters: DeadLetterFilters;
  /** The filters' canonical query string (the react-query key and the live URL's query). */
  search: string;
  liveUrl: string;
  /** Absent for viewers: no checkbox, no button. */
  actions?: DeadLetterActions;
  /** Types that destroy data: replayed one at a time, by an admin who types the org (never in bulk). */
  destructiveTypes: readonly string[];
  /** The user may confirm such a replay (admins). */
  canConfirm: boolean;
}

/**
 * The dead-letters list: status tabs, newest first, paged by URL, refreshed every few
 * seconds. Operators select rows to replay them, or replay every match in the
 * background; admins also discard in bulk and purge.
 */
export function DeadLetterTable({ initial, filters, search, liveUrl, actions, destructiveTypes, canConfirm }: DeadLetterTableProps) {
  const client = useQueryClient();
  const q = useLiveQuery<DeadLetterList>(liveUrl, {
    queryKey: queryKeys.deadLetters(search),
    initialData: initial,
  });
  const list = q.data;
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const refresh = useCallback(() => client.invalidateQueries({ queryKey: queryKeys.deadLetters(search) }), [client, search]);
  // Rows stay where they are while the operator points, types or selects in the list.
  const held = useHeldRows(list.rows, { selecting: selected.size > 0, describeNew: describeNewRows });
  // Only rows still on the page (and still actionable) stay selected as the list refreshes.
  const selectable = held.rows.filter((r) => !held.departed.has(r.id) && (r.status === 'pending' || r.status === 'replayed'));
  const chosen = selectable.filter((r) => selected.has(r.id));
  const allChosen = selectable.length > 0 && chosen.length === selectable.length;

  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const router = useRouter();
  const [asking, setAsking] = useState<ConfirmRequest | null>(null);
  // j/k walk the rows, Enter opens one; r replays the focused one through its own Replay button,
  // after asking (the button itself does not), so the outcome shows in the row as a click's would.
  // A type that destroys data asks for its typed org in a dialog of its own: r opens that one.
  useRowShortcuts({
    open: (id) => router.push(`/dead-letters/${encodeURIComponent(id)}`),
    act: actions
      ? (id, row) => {
          const replay = row.querySelector<HTMLButtonElement>('[data-row-action="replay"]');
          if (!replay) {
            row.querySelector<HTMLButtonElement>('[data-row-action="replay-confirm"]')?.click();
            return;
          }
          setAsking({
            title: `Replay dead letter ${id}?`,
            description: <p>Its job is sent to its queue again, with the payload it failed with.</p>,
            confirmLabel: replay.textContent ?? 'Replay',
            onConfirm: () => replay.click(),
          });
        }
      : undefined,
  });

  return (
    <div className="stack">
      <DeadLetterStatusTabs filters={filters} counts={list.counts} />
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <span data-testid="dlq-total" data-total={list.total}>
          <strong>{list.total.toLocaleString('en')}</strong> {list.total === 1 ? 'dead letter matches' : 'dead letters match'}
          {list.total > 0 && (
            <span className="muted">
              {' '}
              · page {list.page.toLocaleString('en')} of {list.pageCount.toLocaleString('en')}
            </span>
          )}
        </span>
        <LiveStatus updatedAt={q.dataUpdatedAt} error={q.error} fetching={q.isFetching} />
      </div>
      {actions && (
        <DeadLetterSelectionBar
          chosen={chosen.map((r) => ({ id: r.id, replays: r.replays, jobType: r.jobType }))}
          destructiveTypes={destructiveTypes}
          actions={actions}
          onDone={() => {
            setSelected(new Set());
            void refresh();
          }}
        />
      )}
      <HeldList held={held} describeNew={describeNewRows} testIdPrefix="dlq">
        {held.rows.length === 0 ? (
          <div className="card" data-testid="dlq-empty">
            <p>
              {list.total === 0 ? 'No dead letter matches these filters.' : 'This page is past the last one.'}{' '}
              {list.total > 0 && <Link href={deadLettersHref({ ...filters, page: 1 })}>Go to the first page</Link>}
            </p>
          </div>
        ) : (
          <Table caption="Dead letters, newest failure first" id={RESULTS_ID} tabIndex={-1} data-testid="dlq-table">
            <thead>
              <tr>
                {actions && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every replayable dead letter on this page"
                      checked={allChosen}
                      disabled={selectable.length === 0}
                      onChange={() => setSelected(allChosen ? new Set() : new Set(selectable.map((r) => r.id)))}
                      data-testid="dlq-select-all"
                    />
                  </th>
                )}
                <th scope="col">Failed</th>
                <th scope="col">Type</th>
                <th scope="col" className="hide-sm">
                  Tenant
                </th>
                <th scope="col">Error</th>
                <th scope="col" className="num hide-sm">
                  Attempts
                </th>
                <th scope="col">Status</th>
                {actions && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {held.rows.map((row) => (
                <DeadLetterRow
                  key={row.id}
                  row={row}
                  departed={held.departed.has(row.id)}
                  filters={filters}
                  selected={selected.has(row.id)}
                  onToggle={toggle}
                  actions={actions}
                  destructive={destructiveTypes.includes(row.jobType)}
                  canConfirm={canConfirm}
                  onChanged={refresh}
                />
              ))}
            </tbody>
          </Table>
        )}
      </HeldList>
      {actions && <ConfirmPrompt request={asking} onClosed={() => setAsking(null)} testId="dlq-replay-shortcut" />}
      <Pagination
        page={list.page}
        pageCount={list.pageCount}
        hrefFor={(page) => deadLettersHref({ ...filters, page })}
        label="Dead-letter pages"
      />
      {actions && (
        <ExportLinks
          testId="dlq-export"
          what="these dead letters"
          hrefFor={(format) => exportUrls.deadLetters(serializeDeadLetterFilters(withoutPaging(filters)), format)}
        />
      )}
      {actions && (
        <DeadLetterBulkPanel
          filters={filters}
          search={search}
          replayable={list.replayable}
          total={list.total}
          actions={actions}
          destructiveTypes={destructiveTypes}
        />
      )}
    </div>
  );
}

function describeNewRows(count: number): string {
  return `${plural(count, 'new dead letter')} ${count === 1 ? 'matches' : 'match'} these filters`;
}
