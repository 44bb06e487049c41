import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';

/**
 * What a quota can limit. The first four are record counts of the tenant store of the
 * same name; `jobsPerDay` is the day's (UTC) job counter of UsageStore; `storageBytes`
 * is the size of the tenant's records as JSON across every tenant store.
 */
export const QUOTA_METRICS = ['memories', 'vectors', 'sessions', 'trajectories', 'jobsPerDay', 'storageBytes'] as const;
export type QuotaMetric = (typeof QUOTA_METRICS)[number];

const limit = z.number().int().nonnegative();

export const quotaLimitsSchema = z
  .object(Object.fromEntries(QUOTA_METRICS.map((m) => [m, limit.optional()])) as Record<QuotaMetric, z.ZodOptional<typeof limit>>)
  .strict()
  .refine((l) => Object.values(l).some((v) => v !== undefined), { message: 'set at least one limit' });
export type QuotaLimits = Partial<Record<QuotaMetric, number>>;

/** A tenant's limits; a workspace may have its own beside its organisation's. */
export const quotaSchema = z.object({
  /** The tenant key: `org` or `org/workspace`. */
  id: z.string().min(1),
  tenant: tenantSchema,
  limits: quotaLimitsSchema,
  updatedAt: z.number().int().nonnegative(),
});
export type Quota = z.infer<typeof quotaSchema>;

/** A usage above its limit, recorded once per tenant, metric and hour. */
export const quotaViolationSchema = z.object({
  /** `<tenantKey>|<metric>|<hour window start, ISO>`: a re-check in the same hour finds it. */
  id: z.string().min(1),
  tenant: tenantSchema,
  metric: z.enum(QUOTA_METRICS),
  limit: z.number().int().nonnegative(),
  usage: z.number().nonnegative(),
  /** Start of the hour (ms) the violation was seen in. */
  window: z.number().int().nonnegative(),
  detectedAt: z.number().int().nonnegative(),
  /** The quota-check job that found it. */
  jobId: z.string().min(1),
});
export type QuotaViolation = z.infer<typeof quotaViolationSchema>;
