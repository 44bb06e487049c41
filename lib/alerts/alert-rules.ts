import { z } from 'zod';

/**
 * The rules the runtime evaluates (docs/alerts.md), the same set as
 * deploy/prometheus/alerts.yml, each with thresholds an admin can change. Stored in
 * Redis as one JSON document; a rule an admin never changed keeps its default here.
 */
export const RULE_NAMES = ['deadLetters', 'criticalDeadLetter', 'failureRate', 'noWorkers', 'oldestWaiting', 'redisDown'] as const;
export type RuleName = (typeof RULE_NAMES)[number];

const enabled = z.boolean().default(true);

export const alertRulesSchema = z.object({
  /** Pending dead letters at or above `threshold` (alerts.yml BullpenDeadLettersOverThreshold). */
  deadLetters: z.object({ enabled, threshold: z.number().int().min(1).max(10_000_000).default(100) }).prefault({}),
  /** A type the job table marks `critical` dead-lettered within the last `windowMinutes`. */
  criticalDeadLetter: z.object({ enabled, windowMinutes: z.number().int().min(1).max(1_440).default(15) }).prefault({}),
  /** Final failures over finished jobs of a type above `percent` over the last `minutes`, once `minFinished` finished. */
  failureRate: z
    .object({
      enabled,
      percent: z.number().min(0.1).max(100).default(5),
      minutes: z.number().int().min(1).max(60).default(10),
      minFinished: z.number().int().min(1).max(1_000_000).default(20),
    })
    .prefault({}),
  /** A handled queue with no connected worker (unknown, not zero, when Redis refuses CLIENT LIST). */
  noWorkers: z.object({ enabled }).prefault({}),
  /** The oldest ready job of a queue has waited more than `seconds`. */
  oldestWaiting: z
    .object({
      enabled,
      seconds: z
        .number()
        .int()
        .min(10)
        .max(7 * 86_400)
        .default(300),
    })
    .prefault({}),
  /** The evaluating worker has had no answer from Redis for `seconds`. */
  redisDown: z.object({ enabled, seconds: z.number().int().min(5).max(3_600).default(60) }).prefault({}),
  /** While an alert holds and nobody acknowledged it, it is sent again this often. */
  repeatSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(3_600),
});

export type AlertRules = z.output<typeof alertRulesSchema>;
/** What an admin may send: any rule's fields, the rest kept as they are. */
export const alertRulesPatchSchema = z
  .object({
    deadLetters: alertRulesSchema.shape.deadLetters.unwrap().partial(),
    criticalDeadLetter: alertRulesSchema.shape.criticalDeadLetter.unwrap().partial(),
    failureRate: alertRulesSchema.shape.failureRate.unwrap().partial(),
    noWorkers: alertRulesSchema.shape.noWorkers.unwrap().partial(),
    oldestWaiting: alertRulesSchema.shape.oldestWaiting.unwrap().partial(),
    redisDown: alertRulesSchema.shape.redisDown.unwrap().partial(),
    repeatSeconds: alertRulesSchema.shape.repeatSeconds,
  })
  .partial()
  .strict();
export type AlertRulesPatch = z.input<typeof alertRulesPatchSchema>;

/** `rules` with `patch` applied field by field, checked again as a whole. */
export function patchRules(rules: AlertRules, patch: AlertRulesPatch): AlertRules {
  const merged: Record<string, unknown> = { ...rules };
  for (const [k, v] of Object.entries(patch)) {
    merged[k] = v !== null && typeof v === 'object' ? { ...(rules[k as RuleName] as object), ...v } : v;
  }
  return alertRulesSchema.parse(merged);
}

export const DEFAULT_ALERT_RULES: AlertRules = alertRulesSchema.parse({});
