'use client';

import { useState } from 'react';
import type { BulkOperation } from '@/dashboard/client/read-models';
import type { QueuePage } from '@/dashboard/client/read-models';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { plural } from '@/dashboard/client/runtime-shared';
import { CleanDialog } from './clean-dialog';
import { RetryAllPreview, useRetryPreview } from './retry-all-preview';
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
  const preview = useRetryPreview(queue, retryOpened);
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
        {/* No count on the button: of the failed jobs, some may be skipped; the confirmation counts both. */}
        <ConfirmDialog
          triggerLabel="Retry all failed…"
          title={`Retry the failed jobs of ${queue}?`}
          description={<RetryAllPreview data={preview.data} error={preview.error} />}
          onOpen={() => setRetryOpened((n) => n + 1)}
          confirmLabel={preview.data ? `Retry ${plural(preview.data.willRetry, 'job')}` : 'Retry'}
          confirmDisabled={!preview.data || preview.data.willRetry === 0}
          variant="primary"
          disabled={failed === 0 || retryAll.pending}
          testId="retry-all"
          onConfirm={async () => {
            if (!preview.data) return;
            setLast('retry');
            const r = await retryAll.run({ queue, before: preview.data.asOf, limit: preview.data.scanned });
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
