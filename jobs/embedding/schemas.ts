import { z } from 'zod';

const namespace = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

export const embeddingBatchSchema = z.object({
  namespace,
  items: z
    .array(z.object({ id: z.string().min(1).max(256), text: z.string().min(1).max(32_000) }))
    .min(1)
    .max(10_000)
    .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'item ids must be unique'),
  /** Texts per batch: the unit of progress and of failure (docs/requirements.md#background-workers: 32). */
  batchSize: z.number().int().min(1).max(256).default(32),
});

export const embeddingReindexSchema = z.object({
  namespace,
  /** Vectors re-embedded per batch; the cursor moves after each. */
  batchSize: z.number().int().min(1).max(256).default(32),
});
