'use client';

import { useId } from 'react';
import { FieldErrors } from './field-errors';

export interface DestructiveConfirmFieldProps {
  /** The job type that destroys data. */
  type: string;
  /**
   * What to type, when the page knows it (the org id the job acts on). The add-job form
   * does not: its tenant is typed in the form itself.
   */
  expected?: string;
  value: string;
  onChange(value: string): void;
  /** The server's refusal of the confirmation ("Type acme to confirm"). */
  errors?: string[];
  /** On the input; `${testId}-field` wraps it and `${testId}-errors` holds the refusal. */
  testId: string;
}

/**
 * The typed confirmation in front of every start of a type that destroys data (add,
 * replay, edit-and-replay, duplicate, retry): an admin types the org id it acts on
 * (docs/security.md, "Destructive job types"). The field only collects the text; the
 * server compares it (dashboard/jobs/job-start-rules.ts) and names what it expected.
 */
export function DestructiveConfirmField({ type, expected, value, onChange, errors, testId }: DestructiveConfirmFieldProps) {
  const id = useId();
  return (
    <div className="field" data-testid={`${testId}-field`}>
      <label htmlFor={id}>
        {expected === undefined ? (
          <>{type} destroys data. Type the orgId it acts on to confirm (the type’s name if it has no tenant); only an admin may start it</>
        ) : (
          <>
            {type} destroys data. Type <code>{expected}</code> to confirm; only an admin may start it
          </>
        )}
      </label>
      <input
        id={id}
        className="mono"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={errors?.length ? true : undefined}
        data-testid={testId}
      />
      <FieldErrors errors={errors} testId={`${testId}-errors`} />
    </div>
  );
}

/** Something typed: the start may be sent (the server decides whether it is the right org). */
export function confirmationTyped(value: string): boolean {
  return value.trim() !== '';
}
