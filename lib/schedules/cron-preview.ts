import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';

/**
 * Pure cron checks and previews: no I/O, "now" is an argument. Patterns are parsed
 * the way BullMQ's Job Schedulers parse them (`CronExpressionParser.parse(pattern,
 * {tz, currentDate})`, not strict), so a preview shows the times BullMQ will fire.
 */

/** The six fields of a Bullpen pattern, seconds first. */
export const CRON_FIELDS = ['seconds', 'minutes', 'hours', 'day-of-month', 'month', 'day-of-week'] as const;
export type CronField = (typeof CRON_FIELDS)[number];

/** Longest pattern accepted; real patterns are far shorter. */
export const MAX_PATTERN_LENGTH = 200;
/** Most fire times one preview computes. */
export const MAX_PREVIEW_RUNS = 100;

export type CronProblemField = CronField | 'pattern' | 'timezone';

export interface CronProblem {
  ok: false;
  /** The field at fault, when one is. */
  field: CronProblemField;
  /** A sentence an operator can act on, e.g. `seconds field 61 is out of range 0-59`. */
  reason: string;
}

export type PatternCheck = { ok: true; pattern: string } | CronProblem;
export type TimezoneCheck = { ok: true; tz: string } | CronProblem;

export interface CronPreviewInput {
  pattern: string;
  /** An IANA time zone name, e.g. `UTC` or `Europe/Berlin`. */
  tz: string;
  /** Epoch milliseconds the fire times are counted from (exclusive). */
  now: number;
  /** How many fire times. @defaultValue 5 */
  count?: number;
}

export type CronPreview =
  | {
      ok: true;
      /** The pattern with its whitespace normalised: what is stored and handed to BullMQ. */
      pattern: string;
      tz: string;
      /** Plain words, e.g. `Every 15 minutes` or `At 03:00`. */
      description: string;
      /** The next fire times after `now`, epoch milliseconds, ascending. */
      nextRuns: number[];
      /** Said when the pattern fires more often than once a minute: valid, but rarely meant. */
      warning?: string;
    }
  | CronProblem;

/** Fire times closer than this get a warning: each is a job, and a seconds field is easy to get wrong. */
export const FREQUENT_FIRE_MS = 60_000;

/**
 * Checks a 6-field pattern (seconds first). One format only: a 5-field pattern is
 * refused with a hint, since silently reading it as "second 0" would make the same
 * text mean different things in different places.
 */
export function checkPattern(raw: string): PatternCheck {
  const pattern = raw.trim().replace(/\s+/g, ' ');
  if (!pattern) return problem('pattern', 'the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return problem('pattern', `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  if (pattern.startsWith('@')) {
    return problem('pattern', `aliases like ${pattern} are not accepted; write the 6 fields, e.g. "0 0 0 * * *" for every day at midnight`);
  }
  const fields = pattern.split(' ');
  if (fields.length !== CRON_FIELDS.length) {
    const hint = fields.length === 5 ? `; Bullpen patterns start with a seconds field, so "${pattern}" would be "0 ${pattern}"` : '';
    return problem('pattern', `expected 6 fields (${CRON_FIELDS.join(' ')}), got ${fields.length}${hint}`);
  }
  for (let i = 0; i < fields.length; i++) {
    const field = CRON_FIELDS[i];
    const value = fields[i];
    // Hashed values (H) draw a random seed per parse; BullMQ re-parses on every run,
    // so the fire times would wander and no preview could show them.
    if (/(^|,)H(\(|\/|,|$)/i.test(value)) {
      return problem(field, `${field} field "${value}": hashed values (H) are not supported`);
    }
    const alone = CRON_FIELDS.map((_, j) => (j === i ? value : '*')).join(' ');
    try {
      CronExpressionParser.parse(alone);
    } catch (err) {
      return problem(field, fieldReason(field, value, message(err)));
    }
  }
  try {
    CronExpressionParser.parse(pattern);
  } catch (err) {
    return problem('pattern', `the fields never match together: ${message(err)}`);
  }
  return { ok: true, pattern };
}

/** Checks an IANA time zone name against the runtime's time zone database. */
export function checkTimezone(raw: string): TimezoneCheck {
  const tz = raw.trim();
  if (!tz) return problem('timezone', 'the time zone is empty');
  if (tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) {
    return problem('timezone', `"${tz}" is not an IANA time zone name such as UTC or Europe/Berlin`);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return problem('timezone', `unknown time zone "${tz}"; use an IANA name such as UTC or Europe/Berlin`);
  }
  return { ok: true, tz };
}

/** Validates pattern and time zone and returns the next fire times after `now`. */
export function previewCron(input: CronPreviewInput): CronPreview {
  const count = input.count ?? 5;
  if (!Number.isInteger(count) || count < 1 || count > MAX_PREVIEW_RUNS) {
    throw new RangeError(`count must be an integer from 1 to ${MAX_PREVIEW_RUNS}, got ${count}`);
  }
  const p = checkPattern(input.pattern);
  if (!p.ok) return p;
  const z = checkTimezone(input.tz);
  if (!z.ok) return z;
  const nextRuns: number[] = [];
  try {
    const expr = CronExpressionParser.parse(p.pattern, { tz: z.tz, currentDate: new Date(input.now) });
    for (let i = 0; i < count; i++) nextRuns.push(expr.next().getTime());
  } catch (err) {
    return problem('pattern', `the pattern has no upcoming fire time in ${z.tz}: ${message(err)}`);
  }
  const warning = frequencyWarning(p.pattern, z.tz, input.now);
  return { ok: true, pattern: p.pattern, tz: z.tz, description: describePattern(p.pattern), nextRuns, ...(warning ? { warning } : {}) };
}

/**
 * A warning when the pattern fires more than once a minute (`* * * * * *` is every
 * second: 86,400 jobs a day). Looks at the next 10 fire times, whatever `count` asked.
 */
export function frequencyWarning(pattern: string, tz: string, now: number): string | undefined {
  let shortest = Number.POSITIVE_INFINITY;
  try {
    const expr = CronExpressionParser.parse(pattern, { tz, currentDate: new Date(now) });
    let previous = expr.next().getTime();
    for (let i = 0; i < 10; i++) {
      const next = expr.next().getTime();
      shortest = Math.min(shortest, next - previous);
      previous = next;
    }
  } catch {
    // Fewer fire times than looked for: not frequent.
  }
  if (shortest >= FREQUENT_FIRE_MS) return undefined;
  const perDay = Math.round(86_400_000 / shortest).toLocaleString('en');
  return `it fires as often as every ${shortest / 1000} s (up to ${perDay} jobs a day); check the seconds field`;
}

/** Plain words for a valid pattern; the pattern itself when cronstrue cannot say it. */
export function describePattern(pattern: string): string {
  try {
    return cronstrue.toString(pattern, { use24HourTimeFormat: true });
  } catch {
    return pattern;
  }
}

function fieldReason(field: CronField, value: string, msg: string): string {
  const range = /got (?:value|range) (\S+) expected range (\d+)-(\d+)/.exec(msg);
  if (range) return `${field} field ${range[1]} is out of range ${range[2]}-${range[3]}`;
  return `${field} field "${value}" is invalid: ${msg}`;
}

function problem(field: CronProblemField, reason: string): CronProblem {
  return { ok: false, field, reason };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
