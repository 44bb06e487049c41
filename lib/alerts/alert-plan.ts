import type { AlertCondition } from './alert-conditions';

/** A firing alert as Redis keeps it (a kill -9 of the evaluating worker loses none of it). */
export interface FiringAlert extends AlertCondition {
  /** When it started to hold (ms). */
  since: number;
  /** When a message about it was last queued for the channels (ms); 0: never (it fired while silenced). */
  lastSentAt: number;
}

export interface ResolvedAlert extends FiringAlert {
  resolvedAt: number;
}

export type AlertEventKind = 'firing' | 'repeat' | 'resolved';

/** One line of a message: what happened to one alert. */
export interface AlertEvent {
  kind: AlertEventKind;
  alert: FiringAlert;
}

export interface AlertPlan {
  /** Firing alerts to write (new or changed). */
  firing: FiringAlert[];
  resolved: ResolvedAlert[];
  /** What the round's one message says; empty: no message. */
  events: AlertEvent[];
}

export interface PlanInput {
  /** What Redis holds as firing. */
  firing: readonly FiringAlert[];
  /** What holds now. */
  conditions: readonly AlertCondition[];
  now: number;
  repeatMs: number;
  /** Acknowledged alerts' keys: they stop repeating, and still resolve. */
  acknowledged: ReadonlySet<string>;
  /** Silenced alerts' keys and until when: they send nothing until then. */
  silences: ReadonlyMap<string, number>;
}

/**
 * One round's transitions, pure: a condition without a firing alert fires; a firing alert
 * whose condition holds repeats once `repeatMs` passed since its last message (unless
 * acknowledged); one whose condition is gone resolves. A silenced alert changes state
 * like any other but adds no event. All of a round's events make one message, so 500
 * dead letters in a minute are one alert with a count, not 500 messages.
 */
export function planRound(input: PlanInput): AlertPlan {
  const { now, repeatMs } = input;
  const current = new Map(input.firing.map((a) => [a.key, a]));
  const silenced = (key: string) => (input.silences.get(key) ?? 0) > now;
  const plan: AlertPlan = { firing: [], resolved: [], events: [] };
  for (const c of input.conditions) {
    const before = current.get(c.key);
    current.delete(c.key);
    if (!before) {
      const mute = silenced(c.key);
      const alert: FiringAlert = { ...c, since: now, lastSentAt: mute ? 0 : now };
      plan.firing.push(alert);
      if (!mute) plan.events.push({ kind: 'firing', alert });
      continue;
    }
    const due = now - before.lastSentAt >= repeatMs && !input.acknowledged.has(c.key) && !silenced(c.key);
    const alert: FiringAlert = { ...before, ...c, since: before.since, lastSentAt: due ? now : before.lastSentAt };
    if (due) plan.events.push({ kind: before.lastSentAt === 0 ? 'firing' : 'repeat', alert });
    if (due || alert.value !== before.value || alert.summary !== before.summary) plan.firing.push(alert);
  }
  for (const gone of current.values()) {
    const resolved: ResolvedAlert = { ...gone, resolvedAt: now };
    plan.resolved.push(resolved);
    // Nobody heard of an alert that fired and ended inside a silence: no resolution either.
    if (!silenced(gone.key) && gone.lastSentAt > 0) plan.events.push({ kind: 'resolved', alert: gone });
  }
  return plan;
}
