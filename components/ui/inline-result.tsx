import type { ReactNode } from 'react';
import type { ActionResult } from '@/lib/dashboard/action-result';

/**
 * The outcome of an action in words, announced to screen readers: `role="status"` for
 * success, `role="alert"` for an error. `data-testid` defaults to "action-result".
 */
export function InlineResult({
  result,
  success,
  testId = 'action-result',
}: {
  result: ActionResult<unknown> | null;
  success?: ReactNode;
  testId?: string;
}) {
  if (!result) return null;
  if (result.ok) {
    return (
      <p className="result ok" role="status" data-testid={testId} data-ok="true">
        {success ?? 'Done.'}
      </p>
    );
  }
  return (
    <p className="result error" role="alert" data-testid={testId} data-ok="false" data-code={result.code}>
      {result.message}
    </p>
  );
}
