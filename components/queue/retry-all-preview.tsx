'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchJson } from '@/components/live/fetch-json';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import type { RetryPreview } from '@/dashboard/client/read-models';
import { plural } from '@/dashboard/client/runtime-shared';

/**
 * What "Retry all failed" will do, read each time its confirmation opens: how many it
 * will retry and how many it will skip, and why (failed jobs whose dead letters were
 * already replayed or discarded are not run again;
 * docs/decisions/0008-one-record-per-failure.md). The retry then acts on exactly the
 * jobs counted here (the preview's `asOf` and `scanned`).
 */
export function useRetryPreview(queue: string, opened: number) {
  return useQuery({
    queryKey: [...queryKeys.queueAll(queue), 'retry-preview', opened],
    queryFn: ({ signal }) => fetchJson<RetryPreview>(liveUrls.retryPreview(queue), signal),
    enabled: opened > 0,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function RetryAllPreview({ data, error }: { data?: RetryPreview; error: unknown }) {
  if (error) return <p className="small field-error">Could not count what will be retried: {(error as Error).message}</p>;
  if (!data) {
    return (
      <p className="small muted" data-testid="retry-all-preview" data-state="loading">
        Counting what will be retried and what will be skipped…
      </p>
    );
  }
  const { replayed, discarded } = data.willSkip;
  const skip = replayed + discarded;
  const partial =
    data.scanned < data.failed ? ` (the oldest ${data.scanned.toLocaleString('en')} of ${data.failed.toLocaleString('en')})` : '';
  return (
    <div className="small" data-testid="retry-all-preview" data-state="done" data-retry={data.willRetry} data-skip={skip}>
      <p style={{ margin: 0 }}>
        <strong data-testid="retry-all-will-retry">{plural(data.willRetry, 'job')}</strong> will go back to waiting with fresh attempts
        {partial}, 500 at a time; their dead letters are marked retried.
      </p>
      <p style={{ margin: '0.25rem 0 0' }} data-testid="retry-all-will-skip">
        {skip === 0
          ? 'None will be skipped: no dead letter of these jobs was replayed or discarded.'
          : `${plural(skip, 'job')} will be skipped: ${[
              replayed > 0 && `${replayed.toLocaleString('en')} already replayed from the dead letters`,
              discarded > 0 && `${discarded.toLocaleString('en')} with a discarded dead letter`,
            ]
              .filter(Boolean)
              .join(', ')}. Running them again would repeat a failure someone already dealt with.`}
      </p>
      <p className="muted" style={{ margin: '0.25rem 0 0' }}>
        Jobs that fail after now are not included. A job someone else retries or removes meanwhile is counted as no longer failed.
      </p>
    </div>
  );
}
