import Link from 'next/link';
import { pageWindow } from '@/dashboard/client/pagination';

export interface PaginationProps {
  page: number;
  /** Known page count; omit when only "is there a next page" is known. */
  pageCount?: number;
  hasNext?: boolean;
  hrefFor(page: number): string;
  label?: string;
}

/** Numbered pages as links (shareable, work without JavaScript). `data-testid="pagination"`. */
export function Pagination({ page, pageCount, hasNext, hrefFor, label = 'Pages' }: PaginationProps) {
  const last = pageCount ?? (hasNext ? page + 1 : page);
  if (last <= 1 && page <= 1) return null;
  const items = pageCount ? pageWindow(page, pageCount) : pageWindow(page, last, 2);
  const nextExists = pageCount ? page < pageCount : !!hasNext;
  return (
    <nav aria-label={label}>
      <ul className="pagination" data-testid="pagination">
        <li>
          {page > 1 ? (
            <Link href={hrefFor(page - 1)} rel="prev" data-testid="page-prev">
              ‹ Prev
            </Link>
          ) : (
            <span className="disabled" aria-disabled="true">
              ‹ Prev
            </span>
          )}
        </li>
        {items.map((it, i) =>
          it === 'gap' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: a gap has no page number; its place names it.
            <li key={`gap-${i}`}>
              <span className="gap" aria-hidden="true">
                …
              </span>
            </li>
          ) : (
            <li key={it}>
              {it === page ? (
                <span aria-current="page" data-testid="page-current">
                  {it.toLocaleString('en')}
                </span>
              ) : (
                <Link href={hrefFor(it)} data-testid={`page-${it}`} aria-label={`Page ${it}`}>
                  {it.toLocaleString('en')}
                </Link>
              )}
            </li>
          ),
        )}
        <li>
          {nextExists ? (
            <Link href={hrefFor(page + 1)} rel="next" data-testid="page-next">
              Next ›
            </Link>
          ) : (
            <span className="disabled" aria-disabled="true">
              Next ›
            </span>
          )}
        </li>
      </ul>
    </nav>
  );
}
