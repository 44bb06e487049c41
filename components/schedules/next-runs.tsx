import { formatFireTime, formatUntil } from '@/dashboard/client/schedules-view';

/**
 * Upcoming fire times in the schedule's own zone (UTC in the tooltip), with how far
 * away each is once the browser knows the time. `data-testid` on the list and each item.
 */
export function NextRuns({
  runs,
  tz,
  now,
  testId = 'schedule-next-runs',
  emptyText,
}: {
  runs: number[];
  tz: string;
  now: number | null;
  testId?: string;
  emptyText: string;
}) {
  if (runs.length === 0) {
    return (
      <p className="muted small" data-testid={testId} data-count={0}>
        {emptyText}
      </p>
    );
  }
  return (
    <ol className="small" data-testid={testId} data-count={runs.length} style={{ margin: 0, paddingLeft: '1.25rem' }}>
      {runs.map((at) => {
        const t = formatFireTime(at, tz);
        return (
          <li key={at} data-testid={`${testId.replace(/s$/, '')}`} data-at={t.iso}>
            <time dateTime={t.iso} title={t.iso} suppressHydrationWarning>
              {t.local}
            </time>
            {now !== null && <span className="muted"> · {formatUntil(at, now)}</span>}
          </li>
        );
      })}
    </ol>
  );
}
