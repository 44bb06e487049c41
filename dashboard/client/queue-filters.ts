import { z } from 'zod';
import { tenantIdPart } from '@/lib/jobs/tenant';
import { DEFAULT_HISTORY_RANGE, type HistoryRange, isHistoryRange } from './history-range';
import { jobStateSchema, type JobStateName } from './job-states';

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;
export const DEFAULT_STATE: JobStateName = 'active';
/** Deepest page a URL may ask for: 100 per page × this covers 10 million jobs. */
export const MAX_PAGE = 100_000;

/** What a queue page shows, as it travels in the URL. */
export interface QueueFilters {
  state: JobStateName;
  /** 1-based. */
  page: number;
  pageSize: number;
  /** Exact job name. */
  name?: string;
  /** Tenant orgId. */
  tenant?: string;
  /** The history card's range, carried along so a tab or page change keeps the chart (history-range.ts). */
  range?: HistoryRange;
}

const nameSchema = z.string().trim().min(1).max(200);

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function get(src: ParamSource, key: string): string | undefined {
  if (src instanceof URLSearchParams) return src.get(key) ?? undefined;
  const v = src[key];
  return Array.isArray(v) ? v[0] : v;
}

/** The tabs a queue page opens on when the URL names none: where an operator's attention is needed first. */
export const LANDING_STATES: readonly JobStateName[] = ['failed', 'waiting', 'active'];

/** The tab a queue page opens on: the first of failed, waiting, active that holds jobs, else active. */
export function landingState(counts: Partial<Record<JobStateName, number>>): JobStateName {
  return LANDING_STATES.find((s) => (counts[s] ?? 0) > 0) ?? DEFAULT_STATE;
}

/** Whether the URL names a tab (otherwise the page opens on `landingState`). */
export function hasStateParam(src: ParamSource): boolean {
  return jobStateSchema.safeParse(get(src, 'state')).success;
}

/**
 * searchParams → filters. Never throws: a bad value falls back to its default, so a
 * mangled shared link still opens a page.
 */
export function parseQueueFilters(src: ParamSource): QueueFilters {
  const state = jobStateSchema.safeParse(get(src, 'state'));
  const page = intParam(get(src, 'page'));
  const size = intParam(get(src, 'size'));
  const name = nameSchema.safeParse(get(src, 'name'));
  const tenant = tenantIdPart.safeParse(get(src, 'tenant')?.trim());
  const range = get(src, 'range');
  return {
    state: state.success ? state.data : DEFAULT_STATE,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    ...(name.success ? { name: name.data } : {}),
    ...(tenant.success ? { tenant: tenant.data } : {}),
    ...(isHistoryRange(range) && range !== DEFAULT_HISTORY_RANGE ? { range } : {}),
  };
}

/** A positive decimal integer, else NaN ("2.5", "1e3", "-4" are not pages). */
function intParam(v: string | undefined): number {
  return v !== undefined && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
}

/**
 * filters → query string (no leading `?`), defaults omitted and keys in a fixed order,
 * so equal filters give equal URLs (and equal react-query keys). A given state is always
 * written: without one, the page opens on the tab that holds jobs (`landingState`).
 */
export function serializeQueueFilters(f: Partial<QueueFilters>): string {
  const p = new URLSearchParams();
  if (f.state) p.set('state', f.state);
  if (f.name) p.set('name', f.name);
  if (f.tenant) p.set('tenant', f.tenant);
  if (f.pageSize && f.pageSize !== DEFAULT_PAGE_SIZE) p.set('size', String(f.pageSize));
  if (f.page && f.page > 1) p.set('page', String(f.page));
  return p.toString();
}

/**
 * The path of a queue page with these filters. The history range rides along in the link
 * but is no part of the job list's identity (`serializeQueueFilters`: cache and query keys).
 */
export function queueHref(queue: string, f: Partial<QueueFilters> = {}): string {
  const list = serializeQueueFilters(f);
  const range = f.range && f.range !== DEFAULT_HISTORY_RANGE ? `range=${f.range}` : '';
  const qs = [list, range].filter(Boolean).join('&');
  return `/queues/${encodeURIComponent(queue)}${qs ? `?${qs}` : ''}`;
}

/** Whether the filters need a scan (name or tenant) rather than one range read. */
export function isFiltered(f: QueueFilters): boolean {
  return f.name !== undefined || f.tenant !== undefined;
}
