import { z } from 'zod';

/**
 * The rules the runtime evaluates (docs/alerts.md), the same set as
 * deploy/prometheus/alerts.yml, each with thresholds an admin can change. Stored in
 * Redis as one JSON document; a threshold an admin never changed keeps its default here.
 */
export const RULE_NAMES = ['deadLetters', 'criticalDeadLetter', 'failureRate', 'noWorkers', 'oldestWaiting', 'redisDown'] as const;
export type RuleName = (typeof RULE_NAMES)[number];

const enabled = z.boolean();

/** Each rule's fields, every one required (defaults: DEFAULT_ALERT_RULES). */
const RULE_SHAPES = {
  /** Pending dead letters at or above `threshold` (alerts.yml BullpenDeadLettersOverThreshold). */
  deadLetters: z.object({ enabled, threshold: z.number().int().min(1).max(10_000_000) }).strict(),
  /** A type the job table marks `critical` dead-lettered within the last `windowMinutes`. */
  criticalDeadLetter: z.object({ enabled, windowMinutes: z.number().int().min(1).max(1_440) }).strict(),
  /** Final failures over finished jobs of a type above `percent` over the last `minutes`, once `minFinished` finished. */
  failureRate: z
    .object({
      enabled,
      percent: z.number().min(0.1).max(100),
      minutes: z.number().int().min(1).max(60),
      minFinished: z.number().int().min(1).max(1_000_000),
    })
    .strict(),
  /** A handled queue with no connected worker (unknown, not zero, when Redis refuses CLIENT LIST). */
  noWorkers: z.object({ enabled }).strict(),
  /** The oldest ready job of a queue has waited more than `seconds`. */
  oldestWaiting: z
    .object({
      enabled,
      seconds: z
        .number()
        .int()
        .min(10)
        .max(7 * 86_400),
    })
    .strict(),
  /** The evaluating worker has had no answer from Redis for `seconds`. */
  redisDown: z.object({ enabled, seconds: z.number().int().min(5).max(3_600) }).strict(),
};
/** While an alert holds and nobody acknowledged it, it is sent again this often. */
const repeatSeconds = z
  .number()
  .int()
  .min(1)
  .max(7 * 86_400);

export const alertRulesSchema = z.object({ ...RULE_SHAPES, repeatSeconds }).strict();
export type AlertRules = z.output<typeof alertRulesSchema>;

export const DEFAULT_ALERT_RULES: AlertRules = alertRulesSchema.parse({
  deadLetters: { enabled: true, threshold: 100 },
  criticalDeadLetter: { enabled: true, windowMinutes: 15 },
  failureRate: { enabled: true, percent: 5, minutes: 10, minFinished: 20 },
  noWorkers: { enabled: true },
  oldestWaiting: { enabled: true, seconds: 300 },
  redisDown: { enabled: true, seconds: 60 },
  repeatSeconds: 3_600,
});

/** What an admin may send: any rule's fields, the rest kept as they are (no defaults: a field left out is not reset). */
export const alertRulesPatchSchema = z
  .object({
    deadLetters: RULE_SHAPES.deadLetters.partial(),
    criticalDeadLetter: RULE_SHAPES.criticalDeadLetter.partial(),
    failureRate: RULE_SHAPES.failureRate.partial(),
    noWorkers: RULE_SHAPES.noWorkers.partial(),
    oldestWaiting: RULE_SHAPES.oldestWaiting.partial(),
    redisDown: RULE_SHAPES.redisDown.partial(),
    repeatSeconds,
  })
  .partial()
  .strict();
export type AlertRulesPatch = z.input<typeof alertRulesPatchSchema>;

/** `rules` with `patch` applied field by field, checked again as a whole. */
export function patchRules(rules: AlertRules, patch: AlertRulesPatch): AlertRules {
  const merged: Record<string, unknown> = { ...rules };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    merged[k] = v !== null && typeof v === 'object' ? { ...(rules[k as RuleName] as object), ...v } : v;
  }
  return alertRulesSchema.parse(merged);
}
