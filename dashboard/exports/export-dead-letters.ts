import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { MAX_PAGE } from '@/lib/dlq/filter';
import { toStoreFilter, withoutPaging, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { EXPORT_MAX_ROWS, type ExportEnd } from '@/dashboard/client/export-format';

/** One exported dead letter: the list row with its whole error message and its payload, times as ISO strings. */
export interface DeadLetterExportRow {
  id: string;
  queue: string;
  jobType: string;
  originalJobId: string;
  orgId?: string;
  workspaceId?: string;
  status: string;
  errorClass: string;
  message: string;
  attempts: number;
  failedAt: string;
  replays: number;
  lastReplayAt?: string;
  payload: unknown;
}

/** The CSV header, in row order. */
export const DEAD_LETTER_EXPORT_COLUMNS: ReadonlyArray<keyof DeadLetterExportRow> = [
  'id',
  'queue',
  'jobType',
  'originalJobId',
  'orgId',
  'workspaceId',
  'status',
  'errorClass',
  'message',
  'attempts',
  'failedAt',
  'replays',
  'lastReplayAt',
  'payload',
];

export interface DeadLetterExportOptions {
  /** @defaultValue EXPORT_MAX_ROWS */
  maxRows?: number;
  /** Entries per store read (the store's cursor pages). @defaultValue 200, its maximum */
  pageSize?: number;
}

/**
 * The dead letters the page's filters show (not its paging), newest failure first, one
 * cursor page at a time (the store's indexes, never a scan). `since` is resolved against
 * `now` once, so the window does not slide while the export runs. Stops after `maxRows`.
 */
export async function* exportDeadLetterPages(
  bullpen: Bullpen,
  f: DeadLetterFilters,
  now: number,
  opts: DeadLetterExportOptions = {},
): AsyncGenerator<DeadLetterExportRow[], ExportEnd> {
  const maxRows = opts.maxRows ?? EXPORT_MAX_ROWS;
  const pageSize = Math.min(MAX_PAGE, Math.max(1, opts.pageSize ?? MAX_PAGE));
  const filter = toStoreFilter(withoutPaging(f), now);
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const limit = Math.min(pageSize, maxRows - rows);
    // The export carries payloads whole (each at most BULLPEN_MAX_PAYLOAD_BYTES when written).
    const page = await bullpen.dlq.list(filter, cursor ? { limit, cursor } : { limit }, { payloadBytes: Number.MAX_SAFE_INTEGER });
    if (page.entries.length) {
      rows += page.entries.length;
      yield page.entries.map(toDeadLetterExportRow);
    }
    cursor = page.nextCursor;
    if (!cursor) return { rows };
    if (rows >= maxRows) return { rows, cut: 'max-rows' };
  }
}

/** Maps a stored entry once into its export row. */
export function toDeadLetterExportRow(e: DeadLetterEntry): DeadLetterExportRow {
  const last = e.replays[e.replays.length - 1];
  return {
    id: e.id,
    queue: e.queue,
    jobType: e.jobType,
    originalJobId: e.originalJobId,
    orgId: e.tenant?.orgId,
    workspaceId: e.tenant?.workspaceId,
    status: e.status,
    errorClass: e.error.errorClass,
    message: e.error.message,
    attempts: e.attempts,
    failedAt: new Date(e.failedAt).toISOString(),
    replays: e.replays.length,
    lastReplayAt: last ? new Date(last.at).toISOString() : undefined,
    payload: e.payload,
  };
}
