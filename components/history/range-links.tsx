import Link from 'next/link';
import { HISTORY_RANGES, type HistoryRange, historyRangeHref, RANGE_SPEC } from '@/dashboard/client/history-range';

/**
 * The range switch of the history charts: plain links that put the range in the URL
 * (`?range=7d`), keeping the page's other parameters, so a view can be shared and works
 * without JavaScript.
 */
export function RangeLinks({
  pathname,
  params,
  current,
}: {
  pathname: string;
  params: Record<string, string | string[] | undefined>;
  current: HistoryRange;
}) {
  return (
    <nav aria-label="Chart range" data-testid="history-range">
      <div className="tabs">
        {HISTORY_RANGES.map((r) => (
          <Link
            key={r}
            href={historyRangeHref(pathname, params, r)}
            aria-current={r === current ? 'page' : undefined}
            data-testid={`history-range-${r}`}
            aria-label={`Show the ${RANGE_SPEC[r].long}`}
          >
            {RANGE_SPEC[r].label}
          </Link>
        ))}
      </div>
    </nav>
  );
}
