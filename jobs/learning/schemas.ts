import { z } from 'zod';

const modelName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

export const trajectoryProcessSchema = z.object({
  /** Specific trajectories; default: every unprocessed one, up to `limit`. */
  trajectoryIds: z.array(z.string().min(1)).max(10_000).optional(),
  limit: z.number().int().min(1).max(10_000).default(500),
});

export const patternTrainingSchema = z.object({
  modelName: modelName.default('default'),
  batchSize: z.number().int().min(1).max(4_096).default(32),
  epochs: z.number().int().min(1).max(1_000).default(10),
  learningRate: z.number().gt(0).max(10).default(0.1),
});

export const ewcConsolidationSchema = z.object({
  modelName: modelName.default('default'),
  /** Strength of the elastic penalty towards the anchored weights. */
  lambda: z.number().min(0).max(1_000).default(10),
  /** Samples used to estimate the Fisher information. */
  sampleSize: z.number().int().min(1).max(100_000).default(1_000),
});
