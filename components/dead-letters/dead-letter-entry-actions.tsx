'use client';

import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { jobPageHref } from '@/lib/dashboard/schedules-view';
import type { DeadLetterActions } from './dlq-actions';

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
      {replay.result?.ok ? (
        <p className="result ok" role="status" data-testid="action-result" data-ok="true">
          Replayed as{' '}
          <Link href={jobPageHref(queue, replay.result.data.jobId)} className="mono" data-testid="dlq-replayed-job">
            {replay.result.data.jobId}
          </Link>
          .
        </p>
      ) : (
        <InlineResult result={replay.result ?? discard.result} success="Discarded." />
      )}
    </div>
  );
}
