'use client';

import { useState } from 'react';
import type { BulkOperation } from '@/lib/dashboard/bulk-operations';
import type { QueuePage } from '@/lib/dashboard/queue-page';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { plural } from '@/lib/dashboard/plural';
import { CleanDialog } from './clean-dialog';
import { RetryAllPreview } from './retry-all-preview';
import type { QueueActions } from './types';

export interface ToolbarProps {
  data: QueuePage;
  actions: QueueActions;
  canOperate: boolean;
  canAdmin: boolean;
  onBulkStarted(op: BulkOperation, title: string): void;
  onChanged(): void;
}

/** Queue-wide actions for operators (pause/resume, promote all, retry all) and admins (clean). */
export function QueueToolbar({ data, actions, canOperate, canAdmin, onBulkStarted, onChanged }: ToolbarProps) {
  const queue = data.queue.name;
  const pause = useAction(data.queue.paused ? actions.resume : actions.pause);
  const retryAll = useAction(actions.retryAll);
  const promoteAll = useAction(actions.promoteAll);
  const [last, setLast] = useState<'pause' | 'retry' | 'promote' | null>(null);
  // Bumped each time the retry-all confirmation opens, so its preview is read fresh.
  const [retryOpened, setRetryOpened] = useState(0);
  if (!canOperate) return null;
  const failed = data.queue.counts.failed;
  const delayed = data.queue.counts.delayed;
  return (
    <div className="stack">
      <div className="row" role="toolbar" aria-label="Queue actions">
        <Button
          variant={data.queue.paused ? 'primary' : 'default'}
          disabled={pause.pending}
          data-testid={data.queue.paused ? 'resume-queue' : 'pause-queue'}
          onClick={async () => {
            setLast('pause');
            const r = await pause.run({ queue });
            if (r.ok) onChanged();
          }}
        >
          {data.queue.paused ? 'Resume queue' : 'Pause queue'}
        </Button>
        <ConfirmDialog
          triggerLabel={`Promote all delayed (${delayed.toLocaleString('en')})`}
          title={`Promote every delayed job of ${queue}?`}
          description={
            <p>
              {plural(delayed, 'delayed job')} {delayed === 1 ? 'moves' : 'move'} to waiting now, in batches of 1,000.
            </p>
          }
          confirmLabel="Promote all"
          variant="default"
          disabled={delayed === 0 || promoteAll.pending}
          testId="promote-all"
          onConfirm={async () => {
            setLast('promote');
            const r = await promoteAll.run({ queue });
            if (r.ok) onBulkStarted(r.data, `Promoting delayed jobs of ${queue}`);
          }}
        />
        <ConfirmDialog
          triggerLabel={`Retry all failed (${failed.toLocaleString('en')})`}
          title={`Retry every failed job of ${queue}?`}
          description={
            <>
              <p>
                {plural(failed, 'failed job')} {failed === 1 ? 'goes' : 'go'} back to waiting with fresh attempts, 500 at a time; their dead
                letters are marked retried. Jobs that fail again meanwhile are not retried twice.
              </p>
              <RetryAllPreview queue={queue} opened={retryOpened} />
            </>
          }
          onOpen={() => setRetryOpened((n) => n + 1)}
          confirmLabel="Retry all"
          variant="primary"
          disabled={failed === 0 || retryAll.pending}
          testId="retry-all"
          onConfirm={async () => {
            setLast('retry');
            const r = await retryAll.run({ queue });
            if (r.ok) onBulkStarted(r.data, `Retrying failed jobs of ${queue}`);
          }}
        />
        {canAdmin && <CleanDialog queue={queue} counts={data.queue.counts} clean={actions.clean} onStarted={onBulkStarted} />}
      </div>
      {last === 'pause' && pause.result && !pause.result.ok && <InlineResult result={pause.result} />}
      {last === 'retry' && retryAll.result && !retryAll.result.ok && <InlineResult result={retryAll.result} />}
      {last === 'promote' && promoteAll.result && !promoteAll.result.ok && <InlineResult result={promoteAll.result} />}
    </div>
  );
}
