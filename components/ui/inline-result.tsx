import type { ReactNode } from 'react';
import type { ActionResult } from '@/dashboard/client/action-result';

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
  return <ErrorResult result={result} testId={testId} />;
}

/**
 * A failed result's paragraph. When the session has ended it links to the sign-in page,
 * which brings the operator back here.
 */
export function ErrorResult({
  result,
  testId = 'action-result',
}: {
  result: Extract<ActionResult<unknown>, { ok: false }>;
  testId?: string;
}) {
  const here = typeof window === 'undefined' ? '/' : `${window.location.pathname}${window.location.search}`;
  return (
    <p className="result error" role="alert" data-testid={testId} data-ok="false" data-code={result.code}>
      {result.message}
      {result.code === 'UNAUTHENTICATED' && (
        <>
          {' '}
          <a href={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in again</a>
        </>
      )}
    </p>
  );
}
