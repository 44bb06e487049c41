'use client';

import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { DestructiveConfirmField, confirmationTyped } from '@/components/ui/destructive-confirm-field';
import { useAction } from '@/components/ui/use-action';
import type { DeadLetterActions } from './dlq-actions';
import { ReplayResultView } from './replay-result';
import { PayloadCheckNote } from './payload-check-note';
import { usePayloadCheck } from './use-payload-check';
import { ErrorList } from '@/components/ui/error-list';
import { LockedFieldsNote } from './locked-fields-note';

export interface PayloadEditorProps {
  id: string;
  queue: string;
  jobType: string;
  replays: number;
  /** The payload the record holds (what a replay sends unless edited), pretty-printed. */
  original: string;
  replay: DeadLetterActions['replay'];
  /** Set for a type that destroys data: what the admin types to replay it (the page offers the editor to admins only then). */
  confirmation?: string;
}

/**
 * A JSON editor for the payload: parse errors (with line and column) and the job
 * type's schema verdict are shown as the operator types; "Replay with this payload"
 * is enabled only when both pass (the schema check runs on the server, where the job
 * table is). Tenant and resource fields are locked (listed under
 * the editor). The server runs the same checks again.
 */
export function PayloadEditor({ id, queue, jobType, replays, original, replay, confirmation }: PayloadEditorProps) {
  const fieldId = useId();
  const [text, setText] = useState(original);
  const [confirm, setConfirm] = useState('');
  const { check, lockedFields: locked } = usePayloadCheck(jobType, text, original);
  const action = useAction(replay);
  const edited = text !== original;
  const refused = action.result && !action.result.ok ? action.result.fieldErrors : undefined;
  const serverErrors = refused?.payload;
  const ready = check.ok && (confirmation === undefined || confirmationTyped(confirm));
  return (
    <form
      className="stack"
      data-testid="dlq-payload-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready || action.pending) return;
        void action.run({
          id,
          expectedReplays: replays,
          ...(edited ? { payload: text } : {}),
          ...(confirmation !== undefined ? { confirm } : {}),
        });
      }}
    >
      <div className="field">
        <label htmlFor={fieldId}>Payload (JSON)</label>
        <textarea
          id={fieldId}
          className="mono"
          rows={Math.min(24, Math.max(6, text.split('\n').length + 1))}
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
          aria-invalid={!check.ok || undefined}
          data-testid="dlq-payload-editor"
        />
        <PayloadCheckNote check={check} type={jobType} testId="dlq-payload-check" />
        <LockedFieldsNote fields={locked} subject="a replay" testId="dlq-locked-fields" />
        <ErrorList messages={serverErrors} />
      </div>
      {confirmation !== undefined && (
        <DestructiveConfirmField
          type={jobType}
          expected={confirmation}
          value={confirm}
          onChange={setConfirm}
          errors={refused?.confirm}
          testId="dlq-replay-edited-confirm"
        />
      )}
      <div className="row">
        <Button type="submit" variant="primary" disabled={!ready || action.pending} data-testid="dlq-replay-edited">
          {action.pending ? 'Replaying…' : edited ? 'Replay with my edits' : 'Replay this payload unchanged'}
        </Button>
        <Button disabled={!edited} onClick={() => setText(original)} data-testid="dlq-payload-reset">
          Undo my edits
        </Button>
      </div>
      <ReplayResultView result={action.result} queue={queue} linkTestId="dlq-replayed-edited-job" />
    </form>
  );
}
