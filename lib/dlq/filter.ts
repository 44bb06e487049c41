import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { ERROR_CLASSES } from '../errors/classify';
import { tenantIdPart } from '../jobs/tenant';
import { DEAD_LETTER_STATUSES } from './dead-letter-id';
import type { DeadLetterEntry } from './entry';
import { DEAD_LETTER_ID } from './dead-letter-id';

/** The largest page `list` returns. */
export const MAX_PAGE = 200;

/**
 * Which entries: every dimension is optional and they combine with AND. `type` is not
 * restricted to the registry's names so entries of a type removed since stay reachable.
 */
export const deadLetterFilterSchema = z
  .object({
    type: z.string().min(1).max(128).optional(),
    /** A tenant's orgId. */
    tenant: tenantIdPart.optional(),
    errorClass: z.enum(ERROR_CLASSES).optional(),
    status: z.enum(DEAD_LETTER_STATUSES).optional(),
    /** failedAt ≥ from (epoch ms). */
    from: z.number().int().min(0).optional(),
    /** failedAt ≤ to (epoch ms). */
    to: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((f) => f.from === undefined || f.to === undefined || f.from <= f.to, 'from must not be after to');
export type DeadLetterFilter = z.input<typeof deadLetterFilterSchema>;

/** A page's `nextCursor`, `<failedAt>:<id>` of the last entry shown. */
export const deadLetterCursorSchema = z
  .string()
  .regex(new RegExp(`^\\d+:${DEAD_LETTER_ID.source.slice(1)}`), 'a cursor returned by a previous page (<failedAt>:<dlq-id>)');

export const deadLetterPageSchema = z
  .object({
    /** @defaultValue 50 */
    limit: z.number().int().min(1).max(MAX_PAGE).default(50),
    /** The `nextCursor` of the previous page; wins over `offset`. */
    cursor: deadLetterCursorSchema.optional(),
    offset: z.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();
export type DeadLetterPageRequest = z.input<typeof deadLetterPageSchema>;

export interface DeadLetterPage {
  entries: DeadLetterEntry[];
  /** Entries matching the filter, all pages together. */
  total: number;
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** Parses with the schema or throws AppError VALIDATION stating the rule. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('VALIDATION', `Invalid ${what}: ${z.prettifyError(parsed.error)}`, { issues: parsed.error.issues });
  }
  return parsed.data;
}

/** Whether an entry (as stored now) matches a filter: bulk operations re-check each entry. */
export function matchesFilter(entry: DeadLetterEntry, f: z.output<typeof deadLetterFilterSchema>): boolean {
  return (
    (f.type === undefined || entry.jobType === f.type) &&
    (f.tenant === undefined || entry.tenant?.orgId === f.tenant) &&
    (f.errorClass === undefined || entry.error.errorClass === f.errorClass) &&
    (f.status === undefined || entry.status === f.status) &&
    (f.from === undefined || entry.failedAt >= f.from) &&
    (f.to === undefined || entry.failedAt <= f.to)
  );
}

export type ParsedFilter = z.output<typeof deadLetterFilterSchema>;
