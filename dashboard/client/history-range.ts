/**
 * The history charts' time range, kept in the URL (`?range=7d`) so a view can be shared.
 * Pure and client-safe: the pages parse with it and the range links are built with it.
 */
export const HISTORY_RANGES = ['1h', '24h', '7d', '30d'] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];
export const DEFAULT_HISTORY_RANGE: HistoryRange = '1h';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How a range is drawn: `points` bars of `stepMs` each, the last one holding now. */
export const RANGE_SPEC: Record<HistoryRange, { label: string; long: string; points: number; stepMs: number; step: string }> = {
  '1h': { label: '1 h', long: 'last hour', points: 60, stepMs: MINUTE, step: 'minute' },
  '24h': { label: '24 h', long: 'last 24 hours', points: 24, stepMs: HOUR, step: 'hour' },
  '7d': { label: '7 d', long: 'last 7 days', points: 7 * 24, stepMs: HOUR, step: 'hour' },
  '30d': { label: '30 d', long: 'last 30 days', points: 30 * 4, stepMs: 6 * HOUR, step: '6 hours' },
};

export function isHistoryRange(v: unknown): v is HistoryRange {
  return typeof v === 'string' && (HISTORY_RANGES as readonly string[]).includes(v);
}

/**
 * The range a link asks for. A missing value is the default; a value that is not a range
 * is the default too, and `ignored` says what was dropped and the rule, for the page to show.
 */
export function parseHistoryRange(value: string | string[] | null | undefined): { range: HistoryRange; ignored?: string } {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v === null || v === '') return { range: DEFAULT_HISTORY_RANGE };
  if (isHistoryRange(v)) return { range: v };
  return { range: DEFAULT_HISTORY_RANGE, ignored: `range "${v.slice(0, 40)}" (one of ${HISTORY_RANGES.join(', ')})` };
}

/**
 * The link to the same page with another range: the page's other parameters are kept, a
 * default range leaves the parameter out, and `#history` brings the charts into view.
 */
export function historyRangeHref(pathname: string, params: Record<string, string | string[] | undefined>, range: HistoryRange): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (k === 'range' || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  }
  if (range !== DEFAULT_HISTORY_RANGE) q.set('range', range);
  const search = q.toString();
  return `${pathname}${search ? `?${search}` : ''}#history`;
}
