'use client';

import { useId, useState } from 'react';
import { PayloadCheckNote } from '@/components/dead-letters/payload-check-note';
import { usePayloadCheck } from '@/components/dead-letters/use-payload-check';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { payloadToText } from '@/dashboard/client/dead-letters-payload';
import type { JobDetail } from '@/dashboard/client/read-models';
import type { JobActions } from './types';
import { ErrorList } from '@/components/ui/error-list';
import { LockedFieldsNote } from '@/components/dead-letters/locked-fields-note';

/** States whose data may be edited (dashboard/jobs/job-data-edit.ts EDITABLE_STATES; that module is server-side). */
export const EDITABLE_JOB_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'prioritized']);

/**
 * Mend a job's payload before it runs: the payload in a JSON editor, checked as the
 * operator types exactly as edit-and-replay checks it (JSON, the type's schema, the
 * locked tenant and resource fields). The editor keeps the payload it opened with, so
 * the page's refresh never overwrites the operator's text, and the server refuses the
 * save if the job started or someone else changed its data meanwhile.
 */
export function EditDataEditor({
  job,
  editData,
  onClose,
  onSaved,
}: {
  job: JobDetail;
  editData: JobActions['editData'];
  onClose(): void;
  onSaved(): void;
}) {
  const fieldId = useId();
  const [original] = useState(() => payloadToText(job.payload.value));
  const [text, setText] = useState(original);
  const { check, lockedFields } = usePayloadCheck(job.queue, text, original);
  const action = useAction(editData);
  const edited = text !== original;
  const stillEditable = EDITABLE_JOB_STATES.has(job.state ?? '');
  const serverErrors = action.result && !action.result.ok ? action.result.fieldErrors?.payload : undefined;
  const ready = edited && check.ok && stillEditable && !action.pending && !action.result?.ok;
  return (
    <form
      className="card stack"
      aria-label="Edit this job's data"
      data-testid="job-edit-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!ready) return;
        const r = await action.run({ queue: job.queue, id: job.id, payload: text, original });
        if (r.ok) onSaved();
      }}
    >
      <h2 style={{ margin: 0 }}>Edit data</h2>
      <div className="field">
        <label htmlFor={fieldId}>Payload (JSON)</label>
        <textarea
          id={fieldId}
          className="mono"
          rows={Math.min(20, Math.max(5, text.split('\n').length + 1))}
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
          readOnly={action.result?.ok}
          aria-invalid={!check.ok || undefined}
          data-testid="job-edit-editor"
        />
        <PayloadCheckNote check={check} type={job.queue} testId="job-edit-check" />
        {lockedFields.length > 0 && <LockedFieldsNote fields={lockedFields} subject="the job" testId="job-edit-locked-fields" />}
        <ErrorList messages={serverErrors} />
      </div>
      {!stillEditable && !action.result?.ok && (
        <p className="result info" role="status" data-testid="job-edit-started">
          The job is {job.state ?? 'gone'} now: its data can no longer be edited, and nothing was written.
        </p>
      )}
      <p className="small muted" style={{ margin: 0 }}>
        Only the payload changes; the job keeps its id, tenant, priority and schedule. If it starts before you save, the save is refused and
        the job runs with the data it had.
      </p>
      <div className="row">
        <Button type="submit" variant="primary" aria-disabled={!ready || undefined} data-testid="job-edit-submit">
          {action.pending ? 'Saving…' : 'Save the data'}
        </Button>
        {edited && !action.result?.ok && (
          <Button onClick={() => setText(original)} data-testid="job-edit-reset">
            Undo my edits
          </Button>
        )}
        <Button onClick={onClose} data-testid="job-edit-close">
          Close
        </Button>
      </div>
      {action.result?.ok ? (
        <p className="result ok" role="status" data-testid="job-edit-result" data-ok="true">
          Saved while the job was {action.result.data.state}: {action.result.data.changes.map((c) => c.path).join(', ')} changed. It runs
          with this data.
        </p>
      ) : (
        <InlineResult result={action.result} testId="job-edit-result" />
      )}
    </form>
  );
}
