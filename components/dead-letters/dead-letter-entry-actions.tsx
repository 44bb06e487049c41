'use client';

import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { DeadLetterActions } from './dlq-actions';
import { ReplayResultView } from './replay-result';

/** Replay with the original payload, or discard, from the entry page. */
export function DeadLetterEntryActions(props: {
  id: string;
  queue: string;
  replays: number;
  replayable: boolean;
  actions: Pick<DeadLetterActions, 'replay' | 'discard'>;
}) {
  const { id, queue, replays, replayable, actions } = props;
  const replay = useAction(actions.replay);
  const discard = useAction(actions.discard);
  const pending = replay.pending || discard.pending;
  return (
    <div className="stack">
      <div className="row" role="group" aria-label="Dead letter actions">
        <Button
          variant="primary"
          disabled={!replayable || pending}
          onClick={() => {
            discard.reset();
            void replay.run({ id, expectedReplays: replays });
          }}
          data-testid="dlq-detail-replay"
        >
          {replay.pending ? 'Replaying…' : replays > 0 ? 'Replay again' : 'Replay'}
        </Button>
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
      {replay.result ? (
        <ReplayResultView result={replay.result} queue={queue} linkTestId="dlq-replayed-job" />
      ) : (
        <InlineResult result={discard.result} success="Discarded." />
      )}
    </div>
  );
}
