'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { BulkOperation } from '@/dashboard/client/read-models';
import { liveUrls, queryKeys } from '@/dashboard/client/query-keys';
import { fetchJson } from '@/components/live/fetch-json';
import { ProgressBar } from '@/components/ui/progress-bar';

/**
 * Follows a background bulk operation: polls every second while it runs, shows a
 * progress bar and the counts in words, and refreshes `invalidate` when it ends.
 */
export function BulkProgress({
  operation,
  title,
  invalidate,
  onClose,
}: {
  operation: BulkOperation;
  title: string;
  invalidate?: readonly unknown[];
  onClose?(): void;
}) {
  const qc = useQueryClient();
  const { data } = useQuery({
    queryKey: queryKeys.bulk(operation.id),
    queryFn: ({ signal }) => fetchJson<BulkOperation>(liveUrls.bulk(operation.id), signal),
    initialData: operation,
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1_000 : false),
  });
  const running = data.status === 'running';
  useEffect(() => {
    if (!running && invalidate) void qc.invalidateQueries({ queryKey: invalidate });
  }, [running, invalidate, qc]);
  const pct = data.total ? (data.done / data.total) * 100 : running ? 0 : 100;
  return (
    <div
      className={`result ${data.status === 'failed' ? 'error' : running || data.failed > 0 ? 'info' : 'ok'}`}
      role="status"
      data-testid="bulk-progress"
      data-status={data.status}
      data-succeeded={data.succeeded}
      data-skipped={data.skipped}
      data-failed={data.failed}
    >
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <strong>{title}</strong>
        {!running && onClose && (
          <button type="button" className="btn btn-sm btn-ghost" onClick={onClose} aria-label="Dismiss">
            ✕
          </button>
        )}
      </div>
      <ProgressBar value={pct} label={running ? 'running' : data.status} testId="bulk-progress-bar" />
      <p className="small" style={{ margin: '0.25rem 0 0' }}>
        {data.succeeded.toLocaleString('en')} done
        {data.total !== null && ` of ${data.total.toLocaleString('en')}`}
        {data.failed > 0 && `, ${data.failed.toLocaleString('en')} failed`}
        {/* The operation says why it skipped what it skipped; without a reason, things changed meanwhile. */}
        {data.message ? ` — ${data.message}` : data.skipped > 0 && `, ${data.skipped.toLocaleString('en')} skipped (changed meanwhile)`}
      </p>
    </div>
  );
}
