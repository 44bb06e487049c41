import type { ReactNode } from 'react';
import type { HistoryRange } from '@/dashboard/client/history-range';
import { RangeLinks } from './range-links';

/**
 * The history card of a page (`#history`, the range links' target): its title, the range
 * switch, what was ignored from the link, and the panel the page reads (`children`).
 */
export function HistorySection({
  title,
  pathname,
  params,
  range,
  ignored,
  children,
}: {
  title: string;
  pathname: string;
  params: Record<string, string | string[] | undefined>;
  range: HistoryRange;
  ignored?: string;
  children: ReactNode;
}) {
  return (
    <section className="card" id="history" aria-labelledby="history-h" data-testid="history">
      <div className="row" style={{ justifyContent: 'space-between', flexWrap: 'wrap' }}>
        <h2 id="history-h" style={{ margin: 0 }}>
          {title}
        </h2>
        <RangeLinks pathname={pathname} params={params} current={range} />
      </div>
      {ignored && (
        <p className="small muted" role="status" data-testid="history-ignored">
          Ignored from the link: {ignored}.
        </p>
      )}
      {children}
    </section>
  );
}
