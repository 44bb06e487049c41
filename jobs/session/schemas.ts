import { z } from 'zod';

const DAY = 24 * 60 * 60 * 1000;

export const sessionCleanupSchema = z.object({
  /** Sessions idle longer than this are expired. */
  maxAgeMs: z
    .number()
    .int()
    .positive()
    .max(3_650 * DAY)
    .default(DAY),
  batchSize: z.number().int().min(1).max(5_000).default(500),
});

export const sessionArchiveSchema = z.object({
  /** Sessions idle longer than this are archived to JSONL, then removed. */
  olderThanMs: z
    .number()
    .int()
    .positive()
    .max(3_650 * DAY)
    .default(7 * DAY),
  batchSize: z.number().int().min(1).max(5_000).default(200),
});
