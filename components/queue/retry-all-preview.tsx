'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchJson } from '@/components/live/fetch-json';
import { liveUrls, queryKeys } from '@/lib/dashboard/query-keys';
import type { RetryPreview } from '@/lib/dashboard/queue-operations';
import { plural } from '@/lib/dashboard/plural';

/**
 * What "Retry all failed" will skip, and why, read when its confirmation opens: failed
 * jobs whose dead letters were already replayed or discarded are not run again
 * (docs/decisions/0008-one-record-per-failure.md).
 */
export function RetryAllPreview({ queue, opened }: { queue: string; opened: number }) {
  const { data, error } = useQuery({
    queryKey: [...queryKeys.queueAll(queue), 'retry-preview', opened],
    queryFn: ({ signal }) => fetchJson<RetryPreview>(liveUrls.retryPreview(queue), signal),
    enabled: opened > 0,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (opened === 0) return null;
  if (error) return <p className="small field-error">Could not count what will be skipped: {(error as Error).message}</p>;
  if (!data) {
    return (
      <p className="small muted" data-testid="retry-all-preview" data-state="loading">
        Counting the jobs whose dead letters were already dealt with…
      </p>
    );
  }
  const { replayed, discarded } = data.willSkip;
  const skip = replayed + discarded;
  const partial = data.scanned < data.failed ? ` (of the oldest ${data.scanned.toLocaleString('en')})` : '';
  return (
    <p className="small" data-testid="retry-all-preview" data-state="done" data-skip={skip}>
      {skip === 0
        ? `None will be skipped${partial}: no dead letter of these jobs was replayed or discarded.`
        : `${plural(skip, 'job')} will be skipped${partial}: ${[
            replayed > 0 && `${replayed.toLocaleString('en')} already replayed from the dead letters`,
            discarded > 0 && `${discarded.toLocaleString('en')} with a discarded dead letter`,
          ]
            .filter(Boolean)
            .join(', ')}. Running them again would repeat a failure someone already dealt with.`}
    </p>
  );
}
