import { z } from 'zod';
import { tenantIdPart } from '@/lib/jobs/tenant';

export const memoryConsolidationSchema = z.object({
  workspaceId: tenantIdPart.optional(),
  userId: tenantIdPart.optional(),
  /** Cosine similarity above which two memories belong to one cluster (docs/requirements.md#background-workers: 0.8). */
  similarityThreshold: z.number().gt(0).lt(1).default(0.8),
  /** `merge` halves the importance of the source memories; `keep` leaves them. */
  strategy: z.enum(['merge', 'keep']).default('merge'),
  minClusterSize: z.number().int().min(2).max(100).default(2),
  maxMemories: z.number().int().min(2).max(10_000).default(1_000),
});

export const memoryCleanupSchema = z
  .object({
    workspaceId: tenantIdPart.optional(),
    /** Drop memories whose importance is below this. */
    importanceBelow: z.number().min(0).max(1).optional(),
    /** Drop memories older than this many days. */
    olderThanDays: z.number().positive().max(36_500).optional(),
    batchSize: z.number().int().min(1).max(5_000).default(500),
  })
  .refine((v) => v.importanceBelow !== undefined || v.olderThanDays !== undefined, {
    message: 'give importanceBelow, olderThanDays or both',
  });

export const memoryImportanceDecaySchema = z.object({
  workspaceId: tenantIdPart.optional(),
  /** Multiplier applied to every memory's importance, in (0, 1). */
  decayFactor: z.number().gt(0).lt(1).default(0.95),
  /** Importance never decays below this. */
  floor: z.number().min(0).max(1).default(0.01),
  batchSize: z.number().int().min(1).max(5_000).default(500),
});
