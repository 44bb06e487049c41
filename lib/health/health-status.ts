import { z } from 'zod';

/** Ordered from best to worst: the position is what the worst-of rule compares. */
export const HEALTH_STATUSES = ['healthy', 'degraded', 'unhealthy'] as const;
export const healthStatusSchema = z.enum(HEALTH_STATUSES);
export type HealthStatus = z.infer<typeof healthStatusSchema>;

export const CHECK_NAMES = ['redis', 'workers', 'queues', 'deadLetters'] as const;
export const checkNameSchema = z.enum(CHECK_NAMES);
export type CheckName = z.infer<typeof checkNameSchema>;

/**
 * Details hold counts, ages, thresholds and fixed reason codes only: never job data
 * and never an error's text, so the report is safe to show to any signed-in user.
 */
export const checkDetailsSchema = z.record(z.string(), z.unknown());

export const checkResultSchema = z.object({
  name: checkNameSchema,
  status: healthStatusSchema,
  /** How long the check took (for `redis`, the PING round trip). */
  latencyMs: z.number().nonnegative(),
  details: checkDetailsSchema,
  /** ISO 8601. */
  checkedAt: z.string(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const healthReportSchema = z.object({
  status: healthStatusSchema,
  checks: z.array(checkResultSchema),
  checkedAt: z.string(),
});
export type HealthReport = z.infer<typeof healthReportSchema>;

/** What an unauthenticated probe may see: statuses, nothing else. */
export const publicHealthSchema = z.object({
  status: healthStatusSchema,
  checks: z.partialRecord(checkNameSchema, healthStatusSchema),
  checkedAt: z.string(),
});
export type PublicHealth = z.infer<typeof publicHealthSchema>;

/** The public view of a report: every detail and latency removed. */
export function toPublicHealth(report: HealthReport): PublicHealth {
  return {
    status: report.status,
    checks: Object.fromEntries(report.checks.map((c) => [c.name, c.status])),
    checkedAt: report.checkedAt,
  };
}
