'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import type { ActionResult } from '@/dashboard/client/action-result';
import { jobPageHref } from '@/dashboard/client/schedules-view';

/**
 * The end of both add-a-job forms (the type's form and raw JSON): submit and close, then
 * the added job's link or what went wrong. `testId` is the form's prefix (`add-job`, `add-raw-job`).
 */
export function AddJobFooter<T extends { jobId: string }>({
  queue,
  testId,
  linkTestId,
  ready,
  pending,
  result,
  onClose,
  addedNote,
}: {
  queue: string;
  testId: string;
  linkTestId: string;
  ready: boolean;
  pending: boolean;
  result: ActionResult<T> | null;
  onClose: () => void;
  /** Words after the link, e.g. how long the job is delayed. */
  addedNote?: (data: T) => ReactNode;
}) {
  return (
    <>
      <div className="row">
        <Button type="submit" variant="primary" aria-disabled={!ready || pending || undefined} data-testid={`${testId}-submit`}>
          {pending ? 'Adding…' : 'Add the job'}
        </Button>
        <Button onClick={onClose} data-testid={`${testId}-close`}>
          Close
        </Button>
      </div>
      {result?.ok ? (
        <p className="result ok" role="status" data-testid={`${testId}-result`} data-ok="true">
          Added{' '}
          <Link href={jobPageHref(queue, result.data.jobId)} className="mono" data-testid={linkTestId}>
            job {result.data.jobId}
          </Link>
          {addedNote?.(result.data)}.
        </p>
      ) : (
        <InlineResult result={result} />
      )}
    </>
  );
}
