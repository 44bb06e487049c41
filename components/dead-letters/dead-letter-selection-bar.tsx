'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useAction } from '@/components/ui/use-action';
import { ErrorResult } from '@/components/ui/inline-result';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { SelectedOutcome } from '@/dashboard/client/read-models';
import type { DeadLetterActions } from './dlq-actions';
import { plural } from '@/dashboard/client/runtime-shared';
import { describeReplayOutcomes } from '@/dashboard/client/runtime-shared';
import { leftOutSentence, splitBulkReplay } from '@/dashboard/client/bulk-replay-selection';

/** "n selected": replay them (operators) or discard them (admins), with the outcome per entry. */
export function DeadLetterSelectionBar({
  chosen,
  destructiveTypes,
  actions,
  onDone,
}: {
  chosen: Array<{ id: string; replays: number; jobType: string }>;
  /** Types a bulk replay leaves out (dashboard/client/bulk-replay-selection.ts). */
  destructiveTypes: readonly string[];
  actions: DeadLetterActions;
  onDone(): void;
}) {
  const replay = useAction(actions.replaySelected);
  const discard = useAction(actions.discardSelected ?? noDiscard);
  const [last, setLast] = useState<'replay' | 'discard' | null>(null);
  // What the last replay left out, said with its result; what this one would, said before the click.
  const [leftOut, setLeftOut] = useState<string | undefined>(undefined);
  const split = splitBulkReplay(chosen, destructiveTypes);
  const willLeaveOut = leftOutSentence(split.leftOut);
  const pending = replay.pending || discard.pending;
  const result = last === 'replay' ? replay.result : last === 'discard' ? discard.result : null;
  return (
    <div className="stack">
      <div className="row" role="group" aria-label="Selected dead letters">
        <span className="small muted" data-testid="dlq-selected-count" aria-live="polite">
          {chosen.length} selected
        </span>
        <Button
          variant="primary"
          size="sm"
          disabled={split.sent.length === 0 || pending}
          onClick={async () => {
            setLast('replay');
            setLeftOut(willLeaveOut);
            const r = await replay.run({ entries: split.sent.map(({ id, replays }) => ({ id, replays })) });
            if (r.ok) onDone();
          }}
          data-testid="dlq-replay-selected"
        >
          {replay.pending ? 'Replaying…' : `Replay selected${split.sent.length ? ` (${split.sent.length})` : ''}`}
        </Button>
        {actions.discardSelected && (
          <ConfirmDialog
            size="sm"
            testId="dlq-discard-selected"
            triggerLabel={`Discard selected${chosen.length ? ` (${chosen.length})` : ''}`}
            title={`Discard ${plural(chosen.length, 'dead letter')}?`}
            description={
              <p>They stay in the list as discarded (kept for the record, never replayed in bulk) until retention removes them.</p>
            }
            confirmLabel="Discard"
            disabled={chosen.length === 0 || pending}
            onConfirm={async () => {
              setLast('discard');
              const r = await discard.run({ ids: chosen.map((c) => c.id) });
              if (r.ok) onDone();
            }}
          />
        )}
      </div>
      {willLeaveOut && !result && (
        <p className="small muted" data-testid="dlq-selected-left-out" data-count={split.leftOut.length}>
          {willLeaveOut}
        </p>
      )}
      <SelectedResult
        result={result}
        verb={last === 'discard' ? 'Discarded' : 'Replayed'}
        leftOut={last === 'replay' ? leftOut : undefined}
      />
    </div>
  );
}

async function noDiscard(): Promise<ActionResult<SelectedOutcome>> {
  return { ok: false, code: 'FORBIDDEN', message: 'Discarding several dead letters at once needs the admin role' };
}

/** The per-entry outcome of a selected action, in words; a replay's, with what its job did first and what was left out. */
function SelectedResult({ result, verb, leftOut }: { result: ActionResult<SelectedOutcome> | null; verb: string; leftOut?: string }) {
  if (!result) return null;
  if (!result.ok) return <ErrorResult result={result} />;
  const { done, skipped, failed, outcomes } = result.data;
  const atOnce = outcomes?.failures.map((f) => ({ id: f.id, reason: `its replay failed at once: ${f.message}` })) ?? [];
  const clean = skipped.length === 0 && failed.length === 0 && !outcomes?.failed && !outcomes?.retrying && !leftOut;
  return (
    <div
      className={`result ${clean ? 'ok' : 'info'}`}
      role="status"
      data-testid="action-result"
      data-ok="true"
      data-done={done.length}
      data-failed-at-once={outcomes?.failed ?? 0}
    >
      {outcomes ? `Enqueued ${plural(done.length, 'replay')}.` : `${verb} ${done.length}.`}
      {outcomes && done.length > 0 && ` ${describeReplayOutcomes(outcomes)}.`}
      {skipped.length > 0 && ` Skipped ${skipped.length} that changed meanwhile.`}
      {failed.length > 0 && ` ${failed.length} failed.`}
      {leftOut && ` ${leftOut}`}
      {(skipped.length > 0 || failed.length > 0 || atOnce.length > 0) && (
        <ul className="small" style={{ margin: '0.25rem 0 0', paddingLeft: '1.25rem' }}>
          {[...atOnce, ...failed, ...skipped].slice(0, 10).map((s) => (
            <li key={s.id}>
              <span className="mono">{s.id}</span>: {s.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
