'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { JobDetail } from '@/dashboard/client/read-models';
import type { RetryMark } from '@/dashboard/client/retry-mark';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { DuplicateEditor } from './duplicate-editor';
import { EDITABLE_JOB_STATES, EditDataEditor } from './edit-data-editor';
import type { JobActions as Actions } from './types';

/** Cancel / retry / promote / duplicate (with an edit step) for operators, remove for admins; each shows its outcome in words. */
export function JobActionBar({
  job,
  retryRefused,
  confirmation,
  actions,
  canOperate,
  canAdmin,
  onChanged,
}: {
  job: JobDetail;
  /** Set when Retry would be refused (its dead letter was replayed or discarded): no button, the page says why. */
  retryRefused?: RetryMark;
  /** Set for a type that destroys data: what an admin types to retry or duplicate it; no one else is offered either. */
  confirmation?: string;
  actions: Actions;
  canOperate: boolean;
  canAdmin: boolean;
  onChanged(): void;
}) {
  const router = useRouter();
  const retry = useAction(actions.retry);
  const promote = useAction(actions.promote);
  const remove = useAction(actions.remove);
  const cancel = useAction(actions.cancel);
  const [duplicating, setDuplicating] = useState(false);
  const [editing, setEditing] = useState(false);
  const [last, setLast] = useState<{ result: ActionResult<unknown>; success: React.ReactNode } | null>(null);
  const [typed, setTyped] = useState('');
  if (!canOperate) return null;
  const input = { queue: job.queue, id: job.id };
  const finishedOrFailed = job.state === 'failed' || job.state === 'completed';
  const busy = retry.pending || promote.pending || remove.pending || cancel.pending;
  // A type that destroys data starts again only for an admin who types the org (the server's rule, dashboard/jobs/job-start-rules.ts).
  const destructive = confirmation !== undefined;
  const mayStart = !destructive || canAdmin;
  const retryLabel = job.state === 'failed' ? 'Retry' : 'Run again';
  const runRetry = async (extra: { confirm?: string }) => {
    const r = await retry.run({ ...input, ...extra });
    setLast({ result: r, success: `Retried with fresh attempts.` });
    if (r.ok) onChanged();
  };
  return (
    <div className="stack">
      <div className="row" role="toolbar" aria-label="Job actions">
        {job.state === 'active' && (
          <ConfirmDialog
            testId="job-cancel"
            triggerLabel="Cancel job"
            title={`Cancel ${job.queue} job ${job.id}?`}
            description={
              <p>Its worker stops the running attempt now. The job fails for good, with no retry, and its page says you cancelled it.</p>
            }
            confirmLabel="Cancel job"
            disabled={busy}
            onConfirm={async () => {
              const r = await cancel.run(input);
              setLast({
                result: r,
                success:
                  r.ok && r.data.outcome === 'unconfirmed'
                    ? `Asked ${r.data.reached} worker ${r.data.reached === 1 ? 'process' : 'processes'} to stop it, but the job had not stopped after 3 s: a worker that was reconnecting may still stop it, or it may finish. Its state above tells.`
                    : 'Cancelled: its worker stopped it, and it failed for good.',
              });
              onChanged();
            }}
          />
        )}
        {finishedOrFailed && !retryRefused && !destructive && (
          <Button variant="primary" disabled={busy} data-testid="job-retry" onClick={() => runRetry({})}>
            {retryLabel}
          </Button>
        )}
        {finishedOrFailed && !retryRefused && destructive && canAdmin && (
          <ConfirmDialog
            testId="job-retry"
            triggerLabel={retryLabel}
            title={`${retryLabel} ${job.queue} job ${job.id}?`}
            description={<p>It runs again and destroys the data it names. This cannot be undone.</p>}
            confirmLabel={retryLabel}
            disabled={busy}
            confirmDisabled={!confirmationTyped(typed)}
            onOpen={() => setTyped('')}
            onConfirm={() => runRetry({ confirm: typed })}
          >
            <DestructiveConfirmField
              type={job.queue}
              expected={confirmation}
              value={typed}
              onChange={setTyped}
              testId="job-retry-confirm"
            />
          </ConfirmDialog>
        )}
        {job.state === 'delayed' && (
          <Button
            disabled={busy}
            data-testid="job-promote"
            onClick={async () => {
              const r = await promote.run(input);
              setLast({ result: r, success: 'Promoted: the job is waiting now.' });
              if (r.ok) onChanged();
            }}
          >
            Promote now
          </Button>
        )}
        {EDITABLE_JOB_STATES.has(job.state ?? '') && !job.payload.truncated && (
          <Button
            disabled={busy}
            aria-expanded={editing}
            aria-controls={editing ? 'job-edit-panel' : undefined}
            data-testid="job-edit-data"
            onClick={() => setEditing((d) => !d)}
          >
            Edit data…
          </Button>
        )}
        {job.enveloped && mayStart && (
          <Button
            disabled={busy}
            aria-expanded={duplicating}
            aria-controls={duplicating ? 'job-duplicate-panel' : undefined}
            data-testid="job-duplicate"
            onClick={() => setDuplicating((d) => !d)}
          >
            Duplicate…
          </Button>
        )}
        {canAdmin && job.state !== 'active' && (
          <ConfirmDialog
            triggerLabel="Remove"
            title={`Remove job ${job.id}?`}
            description={<p>The job, its data and its logs are deleted from {job.queue}. Its dead letter, if any, stays.</p>}
            confirmLabel="Remove job"
            disabled={busy}
            testId="job-remove"
            onConfirm={async () => {
              const r = await remove.run(input);
              setLast({ result: r, success: 'Removed.' });
              if (r.ok) router.push(`/queues/${encodeURIComponent(job.queue)}`);
            }}
          />
        )}
      </div>
      {!mayStart && (
        <p className="small muted" data-testid="job-admin-only">
          {job.queue} destroys data: only an admin may retry or duplicate it, typing the org it acts on.
        </p>
      )}
      {last && <InlineResult result={last.result} success={last.success} />}
      {editing && (
        <div id="job-edit-panel">
          <EditDataEditor job={job} editData={actions.editData} onClose={() => setEditing(false)} onSaved={onChanged} />
        </div>
      )}
      {duplicating && (
        <div id="job-duplicate-panel">
          <DuplicateEditor job={job} confirmation={confirmation} duplicate={actions.duplicate} onClose={() => setDuplicating(false)} />
        </div>
      )}
    </div>
  );
}
