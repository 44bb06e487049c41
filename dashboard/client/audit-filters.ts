import type { AuditEntry } from '@/lib/audit/audit-log';
import { SINCE_WINDOWS, formatInstant, parseTimeWindow, type SinceWindow } from './dead-letters-filters';

/** A Redis stream id: the audit page's cursor (`?before=<id>`). */
export const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

/** What the audit page shows, as it travels in the URL. */
export interface AuditFilters {
  /** Who, case-insensitive substring: `alice` finds `alice` and `cli:alice`. */
  actor?: string;
  /** An action (`dlq.replay`) or its group (`dlq`, which finds every `dlq.*`). */
  action?: string;
  /** Case-insensitive substring of `kind:id`: `dead-letter:`, `webhook-dispatch/12`. */
  target?: string;
  /** A relative window; wins over `from`. */
  since?: SinceWindow;
  /** at ≥ from (epoch ms). */
  from?: number;
  /** at ≤ to (epoch ms), inclusive. */
  to?: number;
  /** Older than this entry (exclusive): the page cursor. */
  before?: string;
}

export interface ParsedAuditFilters {
  filters: AuditFilters;
  /** Parameters that were present but unusable, with the reason, so the page can say so. */
  ignored: Array<{ param: string; reason: string }>;
}

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function get(src: ParamSource, key: string): string | undefined {
  const v = src instanceof URLSearchParams ? (src.get(key) ?? undefined) : src[key];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

const ACTION = /^[a-z0-9][a-z0-9.-]{0,99}$/;

/**
 * searchParams → filters. Never throws: an unusable value is left out and listed in
 * `ignored`, so a mangled shared link still opens a page that says what it dropped.
 */
export function parseAuditFilters(src: ParamSource): ParsedAuditFilters {
  const ignored: ParsedAuditFilters['ignored'] = [];
  const filters: AuditFilters = {};
  for (const key of ['actor', 'target'] as const) {
    const raw = get(src, key);
    if (raw === undefined) continue;
    if (raw.length <= 200) filters[key] = raw;
    else ignored.push({ param: key, reason: 'longer than 200 characters' });
  }
  const action = get(src, 'action');
  if (action !== undefined) {
    const a = action.toLowerCase();
    if (ACTION.test(a)) filters.action = a.replace(/\.+$/, '');
    else ignored.push({ param: 'action', reason: 'an action such as dlq.replay, or a group such as dlq' });
  }
  Object.assign(
    filters,
    parseTimeWindow((key) => get(src, key), ignored),
  );
  const before = get(src, 'before');
  if (before !== undefined) {
    if (STREAM_ID.test(before)) filters.before = before;
    else ignored.push({ param: 'before', reason: 'a stream id like 1700000000000-0' });
  }
  return { filters, ignored };
}

/** filters → query string (no `?`): keys in a fixed order, so equal filters give equal URLs. */
export function serializeAuditFilters(f: AuditFilters): string {
  const p = new URLSearchParams();
  if (f.actor) p.set('actor', f.actor);
  if (f.action) p.set('action', f.action);
  if (f.target) p.set('target', f.target);
  if (f.since) p.set('since', f.since);
  else if (f.from !== undefined) p.set('from', formatInstant(f.from));
  if (f.to !== undefined) p.set('to', formatInstant(f.to));
  if (f.before) p.set('before', f.before);
  return p.toString();
}

export function auditHref(f: AuditFilters = {}): string {
  const qs = serializeAuditFilters(f);
  return `/audit${qs ? `?${qs}` : ''}`;
}

/** Whether anything but the cursor narrows the list. */
export function hasAuditFilter(f: AuditFilters): boolean {
  return [f.actor, f.action, f.target, f.since, f.from, f.to].some((v) => v !== undefined);
}

/** The time window in epoch ms, with `since` resolved against `now`. */
export function auditWindow(f: AuditFilters, now: number): { from?: number; to?: number } {
  const from = f.since !== undefined ? Math.max(0, now - SINCE_WINDOWS[f.since]) : f.from;
  return { from, to: f.to };
}

/**
 * Whether an entry passes the actor, action and target filters (time is the stream
 * range's job: the entry ids are their timestamps).
 */
export function matchesAudit(e: Pick<AuditEntry, 'actor' | 'action' | 'target'>, f: AuditFilters): boolean {
  if (f.actor && !e.actor.toLowerCase().includes(f.actor.toLowerCase())) return false;
  if (f.action && e.action !== f.action && !e.action.startsWith(`${f.action}.`)) return false;
  if (f.target && !`${e.target.kind}:${e.target.id}`.toLowerCase().includes(f.target.toLowerCase())) return false;
  return true;
}

/** Words for the filters, for the page's summary line. */
export function describeAuditFilters(f: AuditFilters): string {
  const parts: string[] = [];
  if (f.actor) parts.push(`by “${f.actor}”`);
  if (f.action) parts.push(f.action.includes('.') ? `action ${f.action}` : `actions ${f.action}.*`);
  if (f.target) parts.push(`target “${f.target}”`);
  if (f.since) parts.push(`in the last ${f.since}`);
  else if (f.from !== undefined) parts.push(`from ${formatInstant(f.from)} UTC`);
  if (f.to !== undefined) parts.push(`until ${formatInstant(f.to)} UTC`);
  return parts.length ? parts.join(', ') : 'every entry';
}
