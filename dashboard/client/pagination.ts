export type PageItem = number | 'gap';

/**
 * The page numbers a pager shows: the first, the last, and `radius` around the
 * current one, with gaps between. Pure, so deep pages (1,000 of 100,000) are cheap.
 */
export function pageWindow(page: number, pageCount: number, radius = 2): PageItem[] {
  if (pageCount <= 1) return [1];
  const current = Math.min(Math.max(1, page), pageCount);
  const pages = new Set<number>([1, pageCount]);
  for (let p = current - radius; p <= current + radius; p++) if (p >= 1 && p <= pageCount) pages.add(p);
  const sorted = [...pages].sort((a, b) => a - b);
  const out: PageItem[] = [];
  sorted.forEach((p, i) => {
    if (i > 0 && p - sorted[i - 1] > 1) out.push(p - sorted[i - 1] === 2 ? p - 1 : 'gap');
    out.push(p);
  });
  return out;
}

/** Pages needed for `total` items; at least 1. */
export function pageCountOf(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
