/**
 * The payload fields an edit may not change (lib/jobs/locked-fields.ts), under a payload
 * editor. `subject` says what stays with its tenant: "a replay", "the job".
 */
export function LockedFieldsNote({ fields, subject, testId }: { fields: readonly string[]; subject: string; testId: string }) {
  return (
    <p className="small muted" data-testid={testId}>
      Locked (an edit may not change them, so {subject} stays with its tenant and resources):{' '}
      {fields.map((f, n) => (
        <span key={f}>
          {n > 0 && ', '}
          <code>{f}</code>
        </span>
      ))}
      .
    </p>
  );
}
