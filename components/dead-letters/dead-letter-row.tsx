'use client';

import Link from 'next/link';
import { useRef, useState } from 'react';
import { shortcutRowProps } from '@/components/keyboard/row-shortcuts';
import { Badge, StatusPill } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { InlineResult } from '@/components/ui/inline-result';
import { RelativeTime } from '@/components/ui/relative-time';
import { useAction } from '@/components/ui/use-action';
import { deadLettersHref, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import type { DeadLetterRow as Row } from '@/dashboard/client/read-models';
import type { DeadLetterActions } from './dlq-actions';
import { ReplayResultView } from './replay-result';

export interface DeadLetterRowProps {
  row: Row;
  /** Shown while the list is held but no longer in it (replayed or discarded elsewhere, or moved to another page). */
  departed?: boolean;
  filters: DeadLetterFilters;
  selected: boolean;
  onToggle(id: string): void;
  actions?: DeadLetterActions;
  /** Its type destroys data: only an admin replays it, one at a time, typing the org it acts on. */
  destructive: boolean;
  /** The user may confirm such a replay (admins). */
  canConfirm: boolean;
  onChanged(): void;
}

/** One dead letter: when, what, for whom, why; type, tenant and error class link to the filtered list. */
export function DeadLetterRow({
  row,
  departed = false,
  filters,
  selected,
  onToggle,
  actions,
  destructive,
  canConfirm,
  onChanged,
}: DeadLetterRowProps) {
  const actionable = !departed && (row.status === 'pending' || row.status === 'replayed');
  const tenant = row.tenant ? `${row.tenant.orgId}${row.tenant.workspaceId ? `/${row.tenant.workspaceId}` : ''}` : undefined;
  return (
    <tr
      data-testid="dlq-row"
      data-id={row.id}
      data-status={row.status}
      data-departed={departed || undefined}
      className={departed ? 'row-departed' : undefined}
      aria-selected={actions ? selected : undefined}
      {...shortcutRowProps(row.id)}
    >
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
      <td className="dlq-error-cell">
        {row.lastReplayFailed && (
          // First: the message beside it is that replay's error, not the original's.
          <div className="small" style={{ marginBottom: '0.25rem' }} data-testid="dlq-row-last-replay-failed">
            <Badge tone="danger">Last replay failed</Badge> <RelativeTime ms={row.lastReplayFailed.at} />
            {row.lastReplayFailed.code && <span className="mono"> {row.lastReplayFailed.code}</span>}
          </div>
        )}
        <div className="dlq-error">
          <Link href={deadLettersHref({ ...filters, errorClass: row.errorClass, page: 1 })} title={`Only ${row.errorClass} errors`}>
            <Badge tone="neutral">{row.errorClass}</Badge>
          </Link>
          <Link href={`/dead-letters/${row.id}`} className="dlq-message" title={row.message} data-testid={`dlq-link-${row.id}`}>
            {row.message || '(no message)'}
          </Link>
        </div>
      </td>
      <td className="num hide-sm">{row.attempts}</td>
      <td>
        <span className="row" style={{ flexWrap: 'nowrap' }}>
          <StatusPill status={row.status} />
          {departed && <span className="small muted">no longer in this list</span>}
          {row.replays > 0 && (
            <span className="small muted" title="Replays so far">
              ×{row.replays}
            </span>
          )}
        </span>
      </td>
      {actions && (
        <td>
          {actionable && <RowActions row={row} actions={actions} destructive={destructive} canConfirm={canConfirm} onChanged={onChanged} />}
        </td>
      )}
    </tr>
  );
}

function RowActions({
  row,
  actions,
  destructive,
  canConfirm,
  onChanged,
}: Pick<DeadLetterRowProps, 'row' | 'destructive' | 'canConfirm' | 'onChanged'> & { actions: DeadLetterActions }) {
  const replay = useAction(actions.replay);
  const discard = useAction(actions.discard);
  const replayButton = useRef<HTMLButtonElement>(null);
  const [typed, setTyped] = useState('');
  const pending = replay.pending || discard.pending;
  const last = replay.result ?? discard.result;
  const label = row.replays > 0 ? 'Replay again' : 'Replay';
  return (
    <div className="stack" style={{ minWidth: '11rem' }}>
      <div className="row" style={{ flexWrap: 'nowrap' }}>
        {destructive ? (
          canConfirm ? (
            // The list shows no payload: the tenant's org is what to type; without one the server names it.
            <ConfirmDialog
              size="sm"
              testId={`dlq-replay-${row.id}`}
              rowAction="replay-confirm"
              triggerLabel={label}
              title={`Replay ${row.jobType} dead letter ${row.id}?`}
              description={<p>Its job runs again and destroys the data it names. This cannot be undone.</p>}
              confirmLabel="Replay"
              disabled={pending}
              confirmDisabled={!confirmationTyped(typed)}
              onOpen={() => setTyped('')}
              onConfirm={async () => {
                discard.reset();
                if ((await replay.run({ id: row.id, expectedReplays: row.replays, confirm: typed })).ok) onChanged();
              }}
            >
              <DestructiveConfirmField
                type={row.jobType}
                expected={row.tenant?.orgId}
                value={typed}
                onChange={setTyped}
                testId={`dlq-confirm-${row.id}`}
              />
            </ConfirmDialog>
          ) : (
            <span className="small muted" title="A type that destroys data" data-testid={`dlq-admin-only-${row.id}`}>
              Admin replays
            </span>
          )
        ) : (
          <Button
            ref={replayButton}
            size="sm"
            variant="primary"
            // aria-disabled, not disabled: a disabled button drops the focus to the top of the page.
            aria-disabled={pending || undefined}
            onClick={async () => {
              if (pending) return;
              discard.reset();
              const r = await replay.run({ id: row.id, expectedReplays: row.replays });
              replayButton.current?.focus();
              if (r.ok) onChanged();
            }}
            data-testid={`dlq-replay-${row.id}`}
            data-row-action="replay"
          >
            {label}
          </Button>
        )}
        <ConfirmDialog
          size="sm"
          variant="default"
          triggerLabel="Discard"
          title={`Discard dead letter ${row.id}?`}
          description={
            <p>
              It stays on record as discarded, is left out of bulk replays, and its job is not retried from the queue. Replay it from its
              page to run it again.
            </p>
          }
          confirmLabel="Discard"
          disabled={pending}
          testId={`dlq-discard-${row.id}`}
          onConfirm={async () => {
            replay.reset();
            if ((await discard.run({ id: row.id })).ok) onChanged();
          }}
        />
      </div>
      {replay.result ? (
        <ReplayResultView result={replay.result} queue={row.queue} linkTestId="dlq-replayed-job-link" />
      ) : (
        last && <InlineResult result={last} success="Discarded." />
      )}
      {replay.result && !replay.result.ok && replay.result.code === 'VALIDATION' && !replay.result.fieldErrors?.confirm && (
        <Link
          href={`/dead-letters/${encodeURIComponent(row.id)}?edit=1#edit-payload`}
          className="small"
          data-testid={`dlq-edit-instead-${row.id}`}
        >
          Edit the payload, then replay
        </Link>
      )}
    </div>
  );
}
