'use client';

import { useId, useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { BulkProgress } from '@/components/queue/bulk-progress';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { BulkOperation } from '@/dashboard/client/read-models';
import { DEFAULT_REPLAY_ALL_LIMIT, DLQ_BULK_BATCH, MAX_REPLAY_ALL } from '@/dashboard/client/dead-letters-limits';
import { describeFilters, hasFilter, withoutPaging, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { queryKeys } from '@/dashboard/client/query-keys';
import type { DeadLetterActions } from './dlq-actions';
import { plural } from '@/dashboard/client/runtime-shared';

export interface DeadLetterBulkPanelProps {
  filters: DeadLetterFilters;
  /** The filters' query string: what the actions are told to act on. */
  search: string;
  /** Entries "replay all" would touch now. */
  replayable: number;
  total: number;
  actions: DeadLetterActions;
  /** Types "replay all" leaves alone: each is replayed on its own by an admin who types the org. */
  destructiveTypes: readonly string[];
}

/**
 * Actions on every match of the filters, run in the background with progress:
 * replay all (capped, in batches) for operators, purge for admins (typed confirmation;
 * refused without a filter).
 */
export function DeadLetterBulkPanel({ filters, search, replayable, total, actions, destructiveTypes }: DeadLetterBulkPanelProps) {
  const id = useId();
  const f = withoutPaging(filters);
  const status = filters.status ?? 'pending';
  const canReplay = status === 'pending' || status === 'replayed';
  // Until the operator types a number, the default follows the live count (it was fixed at the first render's).
  const [typed, setLimit] = useState<number | null>(null);
  const limit = typed ?? Math.min(Math.max(replayable, 1), DEFAULT_REPLAY_ALL_LIMIT);
  const replayAll = useAction(actions.replayAll);
  const purge = useAction(actions.purge ?? noPurge);
  const [replayOp, setReplayOp] = useState<BulkOperation | null>(null);
  const [purgeOp, setPurgeOp] = useState<BulkOperation | null>(null);
  const invalidate = queryKeys.deadLetters(search);
  const limitOk = Number.isInteger(limit) && limit >= 1 && limit <= MAX_REPLAY_ALL;
  const willReplay = Math.min(replayable, limitOk ? limit : 0);
  // The types of the filter that a bulk replay skips (the server's rule, dashboard/dead-letters/dead-letters-replay.ts).
  const leftAlone = destructiveTypes.filter((t) => f.type === undefined || f.type === t);

  return (
    <section className="card stack" aria-labelledby={`${id}-h`} data-testid="dlq-bulk-panel">
      <h2 id={`${id}-h`}>Every match of these filters</h2>
      <div className="stack">
        <p className="small">
          <strong>Replay all that match</strong> ({describeFilters({ ...f, status })}):{' '}
          <span data-testid="dlq-replayable">{replayable.toLocaleString('en')}</span> now. At most {MAX_REPLAY_ALL.toLocaleString('en')} per
          run, {DLQ_BULK_BATCH} at a time; an entry that changed meanwhile is skipped.
          {leftAlone.length > 0 && (
            <span data-testid="dlq-replay-all-left-alone">
              {' '}
              Dead letters of {leftAlone.join(', ')} are skipped too: a type that destroys data is replayed one at a time, by an admin who
              types the org it acts on.
            </span>
          )}
        </p>
        <div className="row">
          <div className="field">
            <label htmlFor={`${id}-limit`}>Replay at most</label>
            <input
              id={`${id}-limit`}
              type="number"
              min={1}
              max={MAX_REPLAY_ALL}
              value={Number.isFinite(limit) ? limit : ''}
              onChange={(e) => setLimit(e.target.valueAsNumber)}
              aria-invalid={!limitOk || undefined}
              style={{ width: '9rem' }}
              data-testid="dlq-replay-all-limit"
            />
          </div>
          <ConfirmDialog
            variant="primary"
            testId="dlq-replay-all"
            triggerLabel={`Replay all that match${willReplay ? ` (${willReplay.toLocaleString('en')})` : ''}`}
            title={`Replay ${plural(willReplay, 'dead letter')}?`}
            description={
              <p>
                Each is enqueued again with fresh attempts, in batches of {DLQ_BULK_BATCH}, newest first:{' '}
                {describeFilters({ ...f, status })}.
              </p>
            }
            confirmLabel="Replay"
            disabled={!canReplay || willReplay === 0 || replayAll.pending}
            onConfirm={async () => {
              setReplayOp(null);
              const r = await replayAll.run({ filter: search, limit });
              if (r.ok) setReplayOp(r.data);
            }}
          />
        </div>
        {!canReplay && <p className="small muted">Discarded and replaying dead letters cannot be replayed; choose pending or replayed.</p>}
        <StartError result={replayAll.result} />
        {replayOp && (
          <BulkProgress
            key={replayOp.id}
            operation={replayOp}
            title="Replay all that match"
            invalidate={invalidate}
            onClose={() => setReplayOp(null)}
          />
        )}
      </div>

      {actions.purge && (
        <div className="stack">
          <p className="small">
            <strong>Purge</strong>: removes the {plural(total, 'dead letter')} matching {describeFilters(f)} for good, and their jobs still
            in a failed set.
            {!hasFilter(f) && ' Choose at least one filter first.'}
          </p>
          <ConfirmDialog
            testId="dlq-purge"
            triggerLabel={`Purge ${total.toLocaleString('en')} matching`}
            title={`Purge ${plural(total, 'dead letter')} for good?`}
            description={
              <p>
                Every dead letter matching <strong>{describeFilters(f)}</strong> is deleted with its history, and its failed job is removed
                so it cannot come back. This cannot be undone.
              </p>
            }
            requireText="purge"
            confirmLabel="Purge"
            disabled={!hasFilter(f) || total === 0 || purge.pending}
            onConfirm={async () => {
              setPurgeOp(null);
              const r = await purge.run({ filter: search, confirm: 'purge' });
              if (r.ok) setPurgeOp(r.data);
            }}
          />
          <StartError result={purge.result} />
          {purgeOp && (
            <BulkProgress key={purgeOp.id} operation={purgeOp} title="Purge" invalidate={invalidate} onClose={() => setPurgeOp(null)} />
          )}
        </div>
      )}
    </section>
  );
}

async function noPurge(): Promise<ActionResult<BulkOperation>> {
  return { ok: false, code: 'FORBIDDEN', message: 'Purging needs the admin role' };
}

/** Only a refusal to start is shown here; a started operation reports through its progress. */
function StartError({ result }: { result: ActionResult<BulkOperation> | null }) {
  if (!result || result.ok) return null;
  return <InlineResult result={result} />;
}
