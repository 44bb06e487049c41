'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { DeadLetterActions } from './dlq-actions';
import { ReplayResultView } from './replay-result';

/**
 * Replay with the original payload, or discard, from the entry page. A type that
 * destroys data is replayed by an admin only, after typing the org it acts on
 * (`confirmation`); anyone else is not offered the replay (the server refuses it).
 */
export function DeadLetterEntryActions(props: {
  id: string;
  queue: string;
  replays: number;
  replayable: boolean;
  /** Set for a type that destroys data: what the admin types to replay it. */
  confirmation?: string;
  /** The user may confirm a destructive replay (admins). */
  canConfirm: boolean;
  actions: Pick<DeadLetterActions, 'replay' | 'discard'>;
}) {
  const { id, queue, replays, replayable, confirmation, canConfirm, actions } = props;
  const replay = useAction(actions.replay);
  const discard = useAction(actions.discard);
  const [typed, setTyped] = useState('');
  const pending = replay.pending || discard.pending;
  const label = replay.pending ? 'Replaying…' : replays > 0 ? 'Replay again' : 'Replay';
  let replayControl: React.ReactNode;
  if (confirmation === undefined) {
    replayControl = (
      <Button
        variant="primary"
        disabled={!replayable || pending}
        onClick={() => {
          discard.reset();
          void replay.run({ id, expectedReplays: replays });
        }}
        data-testid="dlq-detail-replay"
      >
        {label}
      </Button>
    );
  } else if (canConfirm) {
    replayControl = (
      <ConfirmDialog
        testId="dlq-detail-replay"
        triggerLabel={label}
        title={`Replay this ${queue} dead letter?`}
        description={<p>Its job runs again and destroys the data it names. This cannot be undone.</p>}
        confirmLabel="Replay"
        disabled={!replayable || pending}
        confirmDisabled={!confirmationTyped(typed)}
        onOpen={() => setTyped('')}
        onConfirm={() => {
          discard.reset();
          void replay.run({ id, expectedReplays: replays, confirm: typed });
        }}
      >
        <DestructiveConfirmField type={queue} expected={confirmation} value={typed} onChange={setTyped} testId="dlq-detail-confirm" />
      </ConfirmDialog>
    );
  }
  return (
    <div className="stack">
      <div className="row" role="group" aria-label="Dead letter actions">
        {replayControl}
        <ConfirmDialog
          variant="default"
          testId="dlq-detail-discard"
          triggerLabel="Discard"
          title="Discard this dead letter?"
          description={
            <p>It stays here as discarded, for the record, and is never replayed in bulk. Retention removes it after 30 days.</p>
          }
          confirmLabel="Discard"
          disabled={!replayable || pending}
          onConfirm={() => {
            replay.reset();
            void discard.run({ id });
          }}
        />
      </div>
      {confirmation !== undefined && !canConfirm && (
        <p className="small muted" data-testid="dlq-detail-admin-only">
          {queue} destroys data: only an admin may replay it, typing the org it acts on.
        </p>
      )}
      {replay.result ? (
        <ReplayResultView result={replay.result} queue={queue} linkTestId="dlq-replayed-job" />
      ) : (
        <InlineResult result={discard.result} success="Discarded." />
      )}
    </div>
  );
}
