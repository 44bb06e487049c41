import { z } from 'zod';
import { ERROR_CLASSES, type ErrorClass } from '@/lib/errors/classify';
import { DEAD_LETTER_STATUSES, type DeadLetterStatus } from '@/lib/dlq/dead-letter-id';
import type { DeadLetterFilter } from '@/lib/dlq/filter';
import { tenantIdPart } from '@/lib/jobs/tenant';

export const DLQ_PAGE_SIZES = [25, 50, 100, 200] as const;
export const DLQ_DEFAULT_PAGE_SIZE = 50;
/** The store refuses offsets past this; deeper pages are reached by narrowing the filter. */
export const DLQ_MAX_OFFSET = 1_000_000;

/** Relative time windows ("failed in the last hour"), resolved against "now" when read. */
export const SINCE_WINDOWS = {
  '15m': 15 * 60_000,
  '1h': 60 * 60_000,
  '6h': 6 * 60 * 60_000,
  '24h': 24 * 60 * 60_000,
  '7d': 7 * 24 * 60 * 60_000,
  '30d': 30 * 24 * 60 * 60_000,
} as const;
export type SinceWindow = keyof typeof SINCE_WINDOWS;
export const SINCE_OPTIONS = Object.keys(SINCE_WINDOWS) as SinceWindow[];

/** What the dead-letters page shows, as it travels in the URL. */
export interface DeadLetterFilters {
  type?: string;
  /** A tenant's orgId. */
  tenant?: string;
  errorClass?: ErrorClass;
  status?: DeadLetterStatus;
  /** failedAt ≥ from (epoch ms). Ignored while `since` is set. */
  from?: number;
  /** failedAt ≤ to (epoch ms), inclusive. */
  to?: number;
  /** A relative window; wins over `from` (a link to "the last hour" stays the last hour). */
  since?: SinceWindow;
  /** 1-based. */
  page: number;
  pageSize: number;
}

export interface ParsedDeadLetterFilters {
  filters: DeadLetterFilters;
  /** Parameters that were present but unusable, with the reason, so the page can say so. */
  ignored: Array<{ param: string; reason: string }>;
}

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function get(src: ParamSource, key: string): string | undefined {
  const v = src instanceof URLSearchParams ? (src.get(key) ?? undefined) : src[key];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

const typeSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a job type such as webhook-dispatch');

// 2025-01-31, 2025-01-31T04:05, 2025-01-31T04:05:06(.789), with an optional Z or ±hh:mm.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A point in time from a URL: an ISO date or date-time (no zone means UTC, the zone the
 * page shows) or epoch milliseconds. Undefined when it is not one.
 */
export function parseInstant(raw: string): number | undefined {
  if (/^\d{10,15}$/.test(raw)) return Number(raw);
  const m = DATE_TIME.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', ms = '0', zone] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms.padEnd(3, '0')));
  // Date.UTC rolls 2025-02-31 over into March: refuse what does not read back the same.
  const check = new Date(base);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return undefined;
  }
  if (!zone || zone.toUpperCase() === 'Z') return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return base - sign * offsetMin * 60_000;
}

/**
 * An instant as it is written in URLs and `<input type="datetime-local">`: UTC without
 * a zone suffix, seconds and milliseconds only when not zero. `parseInstant` reads it back.
 */
export function formatInstant(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2025-01-31T04:05:06.789Z
  if (iso.endsWith(':00.000Z')) return iso.slice(0, 16);
  if (iso.endsWith('.000Z')) return iso.slice(0, 19);
  return iso.slice(0, 23);
}

/**
 * The time window of a filter URL: `since` (a relative window, which wins over `from`),
 * `from` and `to` (UTC instants, `to` not before `from`). What cannot be used is left
 * out and listed in `ignored` with the reason. Shared by the dead-letter and audit filters.
 */
export function parseTimeWindow(
  read: (key: string) => string | undefined,
  ignored: Array<{ param: string; reason: string }>,
): { since?: SinceWindow; from?: number; to?: number } {
  const w: { since?: SinceWindow; from?: number; to?: number } = {};
  const since = read('since');
  if (since !== undefined) {
    if (since in SINCE_WINDOWS) w.since = since as SinceWindow;
    else ignored.push({ param: 'since', reason: `one of ${SINCE_OPTIONS.join(', ')}` });
  }
  for (const key of ['from', 'to'] as const) {
    const raw = read(key);
    if (raw === undefined) continue;
    const t = parseInstant(raw);
    if (t === undefined) ignored.push({ param: key, reason: 'not a date such as 2025-01-31T04:05 (UTC)' });
    else w[key] = t;
  }
  if (w.since !== undefined && w.from !== undefined) {
    ignored.push({ param: 'from', reason: `replaced by since=${w.since}` });
    delete w.from;
  }
  if (w.from !== undefined && w.to !== undefined && w.from > w.to) {
    ignored.push({ param: 'to', reason: 'before from' });
    delete w.to;
  }
  return w;
}

/**
 * searchParams → filters. Never throws: an unusable value is left out (and listed in
 * `ignored`), so a mangled shared link still opens a page that says what it dropped.
 */
export function parseDeadLetterFilters(src: ParamSource): ParsedDeadLetterFilters {
  const ignored: ParsedDeadLetterFilters['ignored'] = [];
  const filters: DeadLetterFilters = { page: 1, pageSize: DLQ_DEFAULT_PAGE_SIZE };

  const type = get(src, 'type');
  if (type !== undefined) {
    const r = typeSchema.safeParse(type);
    if (r.success) filters.type = r.data;
    else ignored.push({ param: 'type', reason: 'not a job type name' });
  }
  const tenant = get(src, 'tenant');
  if (tenant !== undefined) {
    const r = tenantIdPart.safeParse(tenant);
    if (r.success) filters.tenant = r.data;
    else ignored.push({ param: 'tenant', reason: 'an orgId holds letters, digits, _ . - only' });
  }
  const errorClass = get(src, 'class');
  if (errorClass !== undefined) {
    if ((ERROR_CLASSES as readonly string[]).includes(errorClass)) filters.errorClass = errorClass as ErrorClass;
    else ignored.push({ param: 'class', reason: `one of ${ERROR_CLASSES.join(', ')}` });
  }
  const status = get(src, 'status');
  if (status !== undefined) {
    if ((DEAD_LETTER_STATUSES as readonly string[]).includes(status)) filters.status = status as DeadLetterStatus;
    else ignored.push({ param: 'status', reason: `one of ${DEAD_LETTER_STATUSES.join(', ')}` });
  }
  Object.assign(
    filters,
    parseTimeWindow((key) => get(src, key), ignored),
  );

  const size = Number.parseInt(get(src, 'size') ?? '', 10);
  if ((DLQ_PAGE_SIZES as readonly number[]).includes(size)) filters.pageSize = size;
  else if (get(src, 'size') !== undefined) ignored.push({ param: 'size', reason: `one of ${DLQ_PAGE_SIZES.join(', ')}` });
  const pageRaw = get(src, 'page');
  const page = Number(pageRaw);
  if (pageRaw !== undefined) {
    if (Number.isInteger(page) && page >= 1) filters.page = Math.min(page, maxPage(filters.pageSize));
    else ignored.push({ param: 'page', reason: 'a page number from 1' });
  }
  return { filters, ignored };
}

/** The deepest page the store serves at this page size. */
export function maxPage(pageSize: number): number {
  return Math.floor(DLQ_MAX_OFFSET / pageSize) + 1;
}

/**
 * filters → query string (no leading `?`): defaults omitted, keys in a fixed order, so
 * equal filters give equal URLs (and equal react-query and cache keys).
 */
export function serializeDeadLetterFilters(f: Partial<DeadLetterFilters>): string {
  const p = new URLSearchParams();
  if (f.type) p.set('type', f.type);
  if (f.tenant) p.set('tenant', f.tenant);
  if (f.errorClass) p.set('class', f.errorClass);
  if (f.status) p.set('status', f.status);
  if (f.since) p.set('since', f.since);
  else if (f.from !== undefined) p.set('from', formatInstant(f.from));
  if (f.to !== undefined) p.set('to', formatInstant(f.to));
  if (f.pageSize && f.pageSize !== DLQ_DEFAULT_PAGE_SIZE) p.set('size', String(f.pageSize));
  if (f.page && f.page > 1) p.set('page', String(f.page));
  return p.toString();
}

/** The dead-letters list with these filters. */
export function deadLettersHref(f: Partial<DeadLetterFilters> = {}): string {
  const qs = serializeDeadLetterFilters(f);
  return `/dead-letters${qs ? `?${qs}` : ''}`;
}

/** The same filters without paging: what "replay all that match" and "purge" act on. */
export function withoutPaging(f: DeadLetterFilters): Omit<DeadLetterFilters, 'page' | 'pageSize'> {
  const { page: _page, pageSize: _size, ...rest } = f;
  return rest;
}

/** The store's filter for these URL filters, with `since` resolved against `now`. */
export function toStoreFilter(f: Omit<DeadLetterFilters, 'page' | 'pageSize'>, now: number): DeadLetterFilter {
  const from = f.since !== undefined ? Math.max(0, now - SINCE_WINDOWS[f.since]) : f.from;
  const out: DeadLetterFilter = {};
  if (f.type) out.type = f.type;
  if (f.tenant) out.tenant = f.tenant;
  if (f.errorClass) out.errorClass = f.errorClass;
  if (f.status) out.status = f.status;
  if (from !== undefined) out.from = from;
  if (f.to !== undefined && (from === undefined || f.to >= from)) out.to = f.to;
  return out;
}

/** Whether any filter dimension is set (an unfiltered purge is refused by the page). */
export function hasFilter(f: Omit<DeadLetterFilters, 'page' | 'pageSize'>): boolean {
  return [f.type, f.tenant, f.errorClass, f.status, f.from, f.to, f.since].some((v) => v !== undefined);
}

/** Words for the filters, for confirm dialogs and the audit log: `type=webhook-dispatch, status=pending`. */
export function describeFilters(f: Omit<DeadLetterFilters, 'page' | 'pageSize'>): string {
  const parts: string[] = [];
  if (f.type) parts.push(`type ${f.type}`);
  if (f.tenant) parts.push(`tenant ${f.tenant}`);
  if (f.errorClass) parts.push(`error class ${f.errorClass}`);
  if (f.status) parts.push(`status ${f.status}`);
  if (f.since) parts.push(`failed in the last ${f.since}`);
  else if (f.from !== undefined) parts.push(`failed from ${formatInstant(f.from)} UTC`);
  if (f.to !== undefined) parts.push(`failed until ${formatInstant(f.to)} UTC`);
  return parts.length ? parts.join(', ') : 'all dead letters';
}
