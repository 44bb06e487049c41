/**
 * Named priorities in BullMQ's order: 1 is the most urgent. The requirements wrote some
 * per-type priorities as "higher = more urgent"; those are translated into these
 * levels in the registry rather than copied (docs/decisions/0001-priorities.md).
 */
export const PRIORITY = { CRITICAL: 1, HIGH: 3, MEDIUM: 5, LOW: 10 } as const;
export type PriorityName = keyof typeof PRIORITY;
export const PRIORITY_NAMES = Object.keys(PRIORITY) as PriorityName[];

/** The named level for a BullMQ priority number (0 and unset mean "no priority"). */
export function priorityName(value: number | undefined): PriorityName | undefined {
  if (!value) return undefined;
  let best: PriorityName = 'LOW';
  for (const name of PRIORITY_NAMES) {
    if (value <= PRIORITY[name]) return name;
    best = name;
  }
  return best;
}
