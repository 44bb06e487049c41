import 'server-only';
import { stableJson } from '@/lib/jobs/locked-fields';

/** One changed value of a payload edit: where, and the value before and after (absent: not there). */
export interface PayloadChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** Longest JSON text of one value the record keeps; a longer one is kept as its first characters and a note. */
export const MAX_CHANGE_TEXT = 2_000;
/** Changes listed at most; past it the list ends with a `…` entry that says how many more there were. */
export const MAX_CHANGES = 50;

/**
 * What an edit changed, value by value: objects are walked key by key (dotted paths,
 * sorted), arrays and other values compared whole. Bounded for an audit entry: at most
 * MAX_CHANGES entries, each value cut to MAX_CHANGE_TEXT characters of JSON. Pure.
 */
export function payloadChanges(before: unknown, after: unknown): PayloadChange[] {
  const out: PayloadChange[] = [];
  walk(before, after, '', out);
  if (out.length <= MAX_CHANGES) return out;
  const more = out.length - MAX_CHANGES;
  return [...out.slice(0, MAX_CHANGES), { path: '…', after: `${more} more change${more === 1 ? '' : 's'}` }];
}

function walk(a: unknown, b: unknown, path: string, out: PayloadChange[]): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(a[k], b[k], path ? `${path}.${k}` : k, out);
    return;
  }
  if (stableJson(a) === stableJson(b)) return;
  out.push({
    path: path || '(whole payload)',
    ...(a !== undefined ? { before: bounded(a) } : {}),
    ...(b !== undefined ? { after: bounded(b) } : {}),
  });
}

function bounded(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text.length > MAX_CHANGE_TEXT ? `${text.slice(0, MAX_CHANGE_TEXT)}… (${text.length} characters of JSON)` : value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
