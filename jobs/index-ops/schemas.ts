import { z } from 'zod';

const namespace = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

export const indexOptimizationSchema = z.object({
  /** Default: every namespace. */
  namespace: namespace.optional(),
  /** Rebuild when deleted / total passes this ratio. */
  threshold: z.number().gt(0).lt(1).default(0.2),
});

export const indexRebalanceSchema = z.object({
  namespace: namespace.optional(),
  /** Rebalance when the shard imbalance ratio passes this. */
  threshold: z.number().gt(0).lt(1).default(0.3),
});
