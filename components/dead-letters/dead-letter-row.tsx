'use client';

import Link from 'next/link';
import { Badge, StatusPill } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { RelativeTime } from '@/components/ui/relative-time';
import { useAction } from '@/components/ui/use-action';
import { deadLettersHref, type DeadLetterFilters } from '@/lib/dashboard/dead-letters-filters';
import type { DeadLetterRow as Row } from '@/lib/dashboard/dead-letters-read';
import type { DeadLetterActions } from './dlq-actions';

export interface DeadLetterRowProps {
  row: Row;
  filters: DeadLetterFilters;
  selected: boolean;
  onToggle(id: string): void;
  actions?: DeadLetterActions;
  onChanged(): void;
}

/** One dead letter: when, what, for whom, why; type, tenant and error class link to the filtered list. */
export function DeadLetterRow({ row, filters, selected, onToggle, actions, onChanged }: DeadLetterRowProps) {
  const actionable = row.status === 'pending' || row.status === 'replayed';
  const tenant = row.tenant ? `${row.tenant.orgId}${row.tenant.workspaceId ? `/${row.tenant.workspaceId}` : ''}` : undefined;
  return (
    <tr data-testid="dlq-row" data-id={row.id} data-status={row.status} aria-selected={actions ? selected : undefined}>
      {actions && (
        <td>
          <input
            type="checkbox"
            checked={selected}
            disabled={!actionable}
            onChange={() => onToggle(row.id)}
            aria-label={`Select dead letter ${row.id}`}
            data-testid={`dlq-select-${row.id}`}
          />
        </td>
      )}
      <td>
        <RelativeTime ms={row.failedAt} />
      </td>
      <td>
        <Link href={deadLettersHref({ ...filters, type: row.jobType, page: 1 })} title={`Only ${row.jobType}`}>
          {row.jobType}
        </Link>
      </td>
      <td className="hide-sm">
        {tenant && row.tenant ? (
          <Link
            href={deadLettersHref({ ...filters, tenant: row.tenant.orgId, page: 1 })}
            className="mono small"
            title={`Only tenant ${row.tenant.orgId}`}
          >
            {tenant}
          </Link>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td style={{ maxWidth: '42ch' }}>
        <div className="row" style={{ flexWrap: 'nowrap', alignItems: 'baseline' }}>
          <Link href={deadLettersHref({ ...filters, errorClass: row.errorClass, page: 1 })} title={`Only ${row.errorClass} errors`}>
            <Badge tone="neutral">{row.errorClass}</Badge>
          </Link>
          <Link
            href={`/dead-letters/${row.id}`}
            className="truncate"
            title={row.message}
            data-testid={`dlq-link-${row.id}`}
            style={{ display: 'inline-block', maxWidth: '34ch' }}
          >
            {row.message || '(no message)'}
          </Link>
        </div>
      </td>
      <td className="num hide-sm">{row.attempts}</td>
      <td>
        <span className="row" style={{ flexWrap: 'nowrap' }}>
          <StatusPill status={row.status} />
          {row.replays > 0 && (
            <span className="small muted" title="Replays so far">
              ×{row.replays}
            </span>
          )}
        </span>
      </td>
      {actions && <td>{actionable && <RowActions row={row} actions={actions} onChanged={onChanged} />}</td>}
    </tr>
  );
}

function RowActions({ row, actions, onChanged }: { row: Row; actions: DeadLetterActions; onChanged(): void }) {
  const replay = useAction(actions.replay);
  const discard = useAction(actions.discard);
  const pending = replay.pending || discard.pending;
  const last = replay.result ?? discard.result;
  return (
    <div className="stack" style={{ minWidth: '11rem' }}>
      <div className="row" style={{ flexWrap: 'nowrap' }}>
        <Button
          size="sm"
          variant="primary"
          disabled={pending}
          onClick={async () => {
            discard.reset();
            if ((await replay.run({ id: row.id, expectedReplays: row.replays })).ok) onChanged();
          }}
          data-testid={`dlq-replay-${row.id}`}
        >
          {row.replays > 0 ? 'Replay again' : 'Replay'}
        </Button>
        <Button
          size="sm"
          disabled={pending}
          onClick={async () => {
            replay.reset();
            if ((await discard.run({ id: row.id })).ok) onChanged();
          }}
          data-testid={`dlq-discard-${row.id}`}
        >
          Discard
        </Button>
      </div>
      {last && <InlineResult result={last} success={replay.result?.ok ? `Replayed as ${replay.result.data.jobId}.` : 'Discarded.'} />}
    </div>
  );
}
