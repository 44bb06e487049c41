import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';

export const learningIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits, _ . : - only');

export const trajectoryStepSchema = z.object({
  /** The state's feature vector; every step of a trajectory has the same length. */
  state: z.array(z.number().finite()).min(1).max(1_024),
  /** The action taken, as a class index. */
  action: z.number().int().min(0).max(255),
  reward: z.number().finite(),
});
export type TrajectoryStep = z.infer<typeof trajectoryStepSchema>;

/** A recorded episode: what the agent saw, did and got, step by step. */
export const trajectorySchema = z
  .object({
    id: learningIdSchema,
    tenant: tenantSchema,
    steps: z.array(trajectoryStepSchema).min(1).max(10_000),
    createdAt: z.number().int().nonnegative(),
    /** Set, together with its training samples, by trajectory-process. */
    processedAt: z.number().int().nonnegative().optional(),
  })
  .refine((t) => t.steps.every((s) => s.state.length === t.steps[0].state.length), {
    message: 'every step’s state must have the same length',
    path: ['steps'],
  });
export type Trajectory = z.infer<typeof trajectorySchema>;

/** One (state → action) example with the discounted return that followed it. */
export const trainingSampleSchema = z.object({
  /** `<trajectoryId>#<step>`: a reprocessed trajectory rewrites the same samples. */
  id: z.string().min(1).max(220),
  tenant: tenantSchema,
  trajectoryId: learningIdSchema,
  step: z.number().int().nonnegative(),
  features: z.array(z.number().finite()).min(1).max(1_024),
  label: z.number().int().min(0).max(255),
  /** Discounted return from this step on: how good taking `label` here turned out. */
  return: z.number().finite(),
  /** The trajectory's createdAt: deterministic, so rewriting a sample changes nothing. */
  createdAt: z.number().int().nonnegative(),
});
export type TrainingSample = z.infer<typeof trainingSampleSchema>;
