import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { auditEntrySchema } from '@/lib/audit/audit-log';
import { type AuditFilters, auditWindow, hasAuditFilter, matchesAudit } from '@/dashboard/client/audit-filters';
import { truncateText } from '@/dashboard/jobs/truncate';

export const AUDIT_PAGE_SIZE = 50;
/** Entries read per page at most while filtering: a rare match pages on instead of walking the whole stream. */
export const AUDIT_MAX_SCAN = 10_000;

export const auditRowSchema = auditEntrySchema.omit({ details: true }).extend({
  /** The details as compact JSON, cut to 1 KiB for the table. */
  details: z.string().optional(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

export interface AuditPage {
  entries: AuditRow[];
  /** Cursor of the next (older) page. */
  next?: string;
  /** Entries read to fill this page. */
  scanned: number;
  /**
   * False when the scan budget ran out before the page filled: older matches may
   * exist, and `next` goes on from where the scan stopped.
   */
  exhausted: boolean;
  /** The time of the oldest entry read, when the scan stopped early (to say how far back it looked). */
  scannedBackTo?: number;
  filtered: boolean;
}

/** One page of the audit log, newest first, narrowed by the URL's filters. */
export async function readAuditPage(
  bullpen: Bullpen,
  filters: AuditFilters,
  opts: { now?: number; limit?: number; maxScan?: number } = {},
): Promise<AuditPage> {
  const { from, to } = auditWindow(filters, opts.now ?? Date.now());
  const page = await bullpen.audit.search({
    match: (e) => matchesAudit(e, filters),
    limit: opts.limit ?? AUDIT_PAGE_SIZE,
    before: filters.before,
    from,
    to,
    maxScan: opts.maxScan ?? AUDIT_MAX_SCAN,
  });
  const stoppedEarly = !page.exhausted && page.entries.length < (opts.limit ?? AUDIT_PAGE_SIZE);
  return {
    entries: page.entries.map((e) => ({
      ...e,
      details: e.details && Object.keys(e.details).length ? truncateText(JSON.stringify(e.details), 1024).text : undefined,
    })),
    next: page.next,
    scanned: page.scanned,
    exhausted: page.exhausted,
    scannedBackTo: stoppedEarly && page.next ? Number(page.next.split('-')[0]) : undefined,
    filtered: hasAuditFilter(filters),
  };
}

/** Who and what the newest entries name: suggestions for the filter form. */
export function readAuditFacets(bullpen: Bullpen): Promise<{ actors: string[]; actions: string[] }> {
  return bullpen.audit.recentFacets(1000);
}
