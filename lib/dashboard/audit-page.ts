import { z } from 'zod';
import type { Bullpen } from '../bullpen';
import { auditEntrySchema } from '../audit/audit-log';
import { truncateText } from './truncate';

export const AUDIT_PAGE_SIZE = 50;

/** A Redis stream id: the cursor of the audit page (`?before=<id>`). */
export const streamIdSchema = z.string().regex(/^\d{1,20}-\d{1,20}$/, 'a stream id like 1700000000000-0');

export const auditRowSchema = auditEntrySchema.omit({ details: true }).extend({
  /** The details as compact JSON, cut to 1 KiB for the table. */
  details: z.string().optional(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

export interface AuditPage {
  entries: AuditRow[];
  /** Cursor of the next (older) page. */
  next?: string;
  before?: string;
}

/** One page of the audit log, newest first, from the `before` cursor (exclusive). */
export async function readAuditPage(bullpen: Bullpen, before?: string, limit = AUDIT_PAGE_SIZE): Promise<AuditPage> {
  const cursor = before !== undefined && streamIdSchema.safeParse(before).success ? before : undefined;
  const page = await bullpen.audit.page({ limit, before: cursor });
  return {
    entries: page.entries.map((e) => ({
      ...e,
      details: e.details && Object.keys(e.details).length ? truncateText(JSON.stringify(e.details), 1024).text : undefined,
    })),
    next: page.next,
    before: cursor,
  };
}
