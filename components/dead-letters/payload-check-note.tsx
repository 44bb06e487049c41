import type { LivePayloadCheck } from './use-payload-check';

/**
 * What the live payload check found, under a JSON editor: the JSON error with its
 * line and column, or each schema issue with its field, or that the value is valid.
 */
export function PayloadCheckNote({ check, type, testId }: { check: LivePayloadCheck; type: string; testId: string }) {
  if (check.ok) {
    return (
      <span className="small" style={{ color: 'var(--ok)' }} data-testid={testId} data-ok="true">
        ✓ Valid JSON, accepted by the {type} schema.
      </span>
    );
  }
  if (check.stage === 'schema') {
    return (
      <div className="field-error" role="alert" data-testid={testId} data-ok="false" data-stage="schema">
        The {type} schema refuses it:
        <ul style={{ margin: '0.25rem 0 0', paddingLeft: '1.25rem' }}>
          {check.issues.map((i, n) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: issues are rendered whole each time and two may share a path.
            <li key={n}>
              {i.path ? <code>{i.path}</code> : 'the value'}: {i.message}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (check.stage === 'checking') {
    return (
      <span className="small muted" data-testid={testId} data-ok="pending" data-stage="checking" aria-live="polite">
        {check.message}
      </span>
    );
  }
  return (
    <span className="field-error" role="alert" data-testid={testId} data-ok="false" data-stage={check.stage}>
      {check.stage === 'json' ? `Not valid JSON: ${check.message}` : check.message}
    </span>
  );
}
