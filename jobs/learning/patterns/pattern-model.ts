import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';

export const modelNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

const finiteArray = z.array(z.number().finite());

/** Old weights θ* with their diagonal Fisher information F: what EWC holds training to. */
export const elasticAnchorSchema = z.object({
  /** The model version whose weights these are. */
  version: z.number().int().positive(),
  weights: finiteArray,
  fisher: finiteArray,
  lambda: z.number().min(0),
  /** Inputs the Fisher information was estimated on. */
  samples: z.number().int().nonnegative(),
  consolidatedAt: z.number().int().nonnegative(),
});
export type ElasticAnchorRecord = z.infer<typeof elasticAnchorSchema>;

/** One trained version of a pattern model (softmax regression: state → action). */
export const patternModelSchema = z.object({
  /** `<scope>:<name>:v<version>`; scope is the tenant key, or `*` for a model of all tenants. */
  id: z.string().min(1).max(300),
  name: modelNameSchema,
  /** Absent: trained on every tenant's samples. */
  tenant: tenantSchema.optional(),
  version: z.number().int().positive(),
  classes: z.number().int().min(2),
  dim: z.number().int().min(1),
  /** Row-major `classes × (dim + 1)`, bias last in each row. */
  weights: finiteArray,
  metrics: z.object({
    /** Mean cross-entropy on the training samples (advantage-weighted). */
    loss: z.number().finite(),
    accuracy: z.number().min(0).max(1),
    epochs: z.number().int().positive(),
    samples: z.number().int().positive(),
    /** λ/2·Σ F(θ − θ*)² at the end of training, when an anchor was in force. */
    elasticPenalty: z.number().finite().optional(),
  }),
  training: z.object({
    batchSize: z.number().int().positive(),
    learningRate: z.number().positive(),
    seed: z.number().int().nonnegative(),
    /** The version training started from; absent: from zero weights. */
    warmStartFrom: z.number().int().positive().optional(),
  }),
  trainedAt: z.number().int().nonnegative(),
  trainedByJob: z.string().min(1),
  /** Set by ewc-consolidation of this version: later training is held to it. */
  anchor: elasticAnchorSchema.optional(),
  /** The anchor that held this version's training, carried on until a new consolidation. */
  trainedWithAnchor: elasticAnchorSchema.optional(),
});
export type PatternModel = z.infer<typeof patternModelSchema>;
