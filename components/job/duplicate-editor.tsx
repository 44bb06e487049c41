'use client';

import Link from 'next/link';
import { useId, useState } from 'react';
import { PayloadCheckNote } from '@/components/dead-letters/payload-check-note';
import { usePayloadCheck } from '@/components/dead-letters/use-payload-check';
import { Button } from '@/components/ui/button';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import { payloadToText } from '@/dashboard/client/dead-letters-payload';
import { jobPageHref } from '@/dashboard/client/schedules-view';
import type { JobDetail } from '@/dashboard/client/read-models';
import type { JobActions } from './types';
import { ErrorList } from '@/components/ui/error-list';

/**
 * Duplicate, with an edit step: the job's payload in a JSON editor, checked as the
 * operator types exactly as edit-and-replay checks it (JSON, the type's schema, the
 * locked tenant and resource fields), and checked again on the server. Unchanged, it
 * duplicates the payload as it is. A payload too large to show whole can only be
 * duplicated as it is: an edit of a cut-off text would lose data.
 */
export function DuplicateEditor({
  job,
  confirmation,
  duplicate,
  onClose,
}: {
  job: JobDetail;
  /** Set for a type that destroys data: what the admin types to duplicate it. */
  confirmation?: string;
  duplicate: JobActions['duplicate'];
  onClose(): void;
}) {
  const fieldId = useId();
  const [confirm, setConfirm] = useState('');
  const editable = !job.payload.truncated;
  const original = editable ? payloadToText(job.payload.value) : '';
  const [text, setText] = useState(original);
  const { check } = usePayloadCheck(job.queue, editable ? text : 'null', editable ? original : undefined);
  const action = useAction(duplicate);
  const edited = editable && text !== original;
  const refused = action.result && !action.result.ok ? action.result.fieldErrors : undefined;
  const serverErrors = refused?.payload;
  const ready = (!editable || check.ok) && (confirmation === undefined || confirmationTyped(confirm));
  return (
    <form
      className="card stack"
      aria-label="Duplicate this job"
      data-testid="job-duplicate-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready || action.pending) return;
        void action.run({
          queue: job.queue,
          id: job.id,
          ...(edited ? { payload: text } : {}),
          ...(confirmation !== undefined ? { confirm } : {}),
        });
      }}
    >
      <h2 style={{ margin: 0 }}>Duplicate</h2>
      {editable ? (
        <div className="field">
          <label htmlFor={fieldId}>Payload of the copy (JSON)</label>
          <textarea
            id={fieldId}
            className="mono"
            rows={Math.min(20, Math.max(5, text.split('\n').length + 1))}
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            aria-invalid={!check.ok || undefined}
            data-testid="job-duplicate-editor"
          />
          <PayloadCheckNote check={check} type={job.queue} testId="job-duplicate-check" />
          <ErrorList messages={serverErrors} />
        </div>
      ) : (
        <p className="small muted" data-testid="job-duplicate-too-large">
          The payload ({job.payload.bytes.toLocaleString('en')} bytes) is too large to edit here; the copy gets it as it is.
        </p>
      )}
      <p className="small muted" style={{ margin: 0 }}>
        The copy is a new job with the same tenant and priority{job.tenant ? ` (org ${job.tenant.orgId})` : ''}; this job is left as it is.
      </p>
      {confirmation !== undefined && (
        <DestructiveConfirmField
          type={job.queue}
          expected={confirmation}
          value={confirm}
          onChange={setConfirm}
          errors={refused?.confirm}
          testId="job-duplicate-confirm"
        />
      )}
      <div className="row">
        <Button type="submit" variant="primary" aria-disabled={!ready || action.pending || undefined} data-testid="job-duplicate-submit">
          {action.pending ? 'Duplicating…' : edited ? 'Duplicate with this payload' : 'Duplicate as it is'}
        </Button>
        {edited && (
          <Button onClick={() => setText(original)} data-testid="job-duplicate-reset">
            Undo my edits
          </Button>
        )}
        <Button onClick={onClose} data-testid="job-duplicate-cancel">
          Close
        </Button>
      </div>
      {action.result?.ok ? (
        <p className="result ok" role="status" data-testid="job-duplicate-result" data-ok="true">
          Duplicated{action.result.data.edited ? ' with the edited payload' : ''} as{' '}
          <Link href={jobPageHref(job.queue, action.result.data.jobId)} className="mono" data-testid="job-duplicated-link">
            job {action.result.data.jobId}
          </Link>
          .
        </p>
      ) : (
        <InlineResult result={action.result} />
      )}
    </form>
  );
}
