import type { z } from 'zod';

/** A check of a value parsed from JSON: true only when the schema takes it and gives it back unchanged. */
export type JsonFastCheck = (value: unknown) => boolean;

type Schema = z.core.$ZodType;
type Check = (value: unknown) => boolean;

/**
 * A job type's payload schema compiled, once, into a plain function for the worker's
 * hot path (docs/benchmarks.md, "Where the runtime's time goes": zod's parse built a new
 * object, a result and an issue list for each field of each job).
 *
 * The function answers true only when zod would accept the value and give back an equal
 * one: no default to fill, no key to strip, no transform. Then the value is the parsed
 * payload as it is. Anything else, a value zod refuses or changes, or one this check is
 * not sure of, answers false, and the caller parses with zod, which gives the output and
 * the error message as always. So it may say false where zod accepts, never true where
 * zod refuses or would change the value; tests/unit/json-fast-check.test.ts holds it to
 * that against zod on generated values.
 *
 * The value must come from JSON.parse (a job's data as BullMQ reads it): plain objects,
 * dense arrays, no symbols, no undefined. Undefined when the schema has a part this
 * does not know (a refinement, a union, a string format, a coercion...): such a type
 * is always parsed by zod.
 */
export function compileJsonFastCheck(schema: Schema): JsonFastCheck | undefined {
  return compile(schema);
}

function compile(schema: Schema): Check | undefined {
  const zod = schema._zod;
  const def = zod.def as unknown as Record<string, unknown> & { type: string; checks?: z.core.$ZodCheck[] };
  switch (def.type) {
    case 'string':
      return def.coerce || def.format !== undefined || def.check !== undefined ? undefined : stringCheck(def.checks ?? []);
    case 'number':
      return def.coerce ? undefined : numberCheck(def);
    case 'boolean':
      return noChecks(def) && !def.coerce ? (v) => typeof v === 'boolean' : undefined;
    case 'null':
      return noChecks(def) ? (v) => v === null : undefined;
    case 'unknown':
    case 'any':
      return noChecks(def) ? () => true : undefined;
    case 'literal':
    case 'enum': {
      const values = zod.values;
      return noChecks(def) && values ? (v) => values.has(v as never) : undefined;
    }
    case 'optional': {
      // An exact optional refuses an explicit undefined, and an inner default fills one in.
      const inner = def.innerType as Schema;
      if (!noChecks(def) || zod.traits.has('$ZodExactOptional') || inner._zod.optin === 'defaulted') return undefined;
      const check = compile(inner);
      return check && ((v) => v === undefined || check(v));
    }
    case 'nullable': {
      const check = noChecks(def) ? compile(def.innerType as Schema) : undefined;
      return check && ((v) => v === null || check(v));
    }
    case 'default': {
      // zod fills in a missing value: only a present one is given back as it is.
      const check = noChecks(def) ? compile(def.innerType as Schema) : undefined;
      return check && ((v) => v !== undefined && check(v));
    }
    case 'array':
      return arrayCheck(def);
    case 'object':
      return objectCheck(def);
    case 'record':
      return recordCheck(def);
    default:
      return undefined;
  }
}

function noChecks(def: { checks?: unknown[] }): boolean {
  return !def.checks || def.checks.length === 0;
}

/** The `check` name and fields of each of a schema's checks (min, max, regex...). */
function checkDefs(checks: z.core.$ZodCheck[]): Array<Record<string, unknown> & { check: string }> {
  return checks.map((c) => c._zod.def as unknown as Record<string, unknown> & { check: string });
}

/**
 * zod counts a string's length in code points: a surrogate pair is one. The length in
 * UTF-16 units settles most strings (a code point is one or two units); the others are
 * counted as zod counts them.
 */
function stringCheck(checks: z.core.$ZodCheck[]): Check | undefined {
  const bounds = { min: 0, max: Number.POSITIVE_INFINITY };
  const patterns: RegExp[] = [];
  for (const c of checkDefs(checks)) {
    if (narrowLength(bounds, c)) continue;
    if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp) patterns.push(c.pattern);
    else return undefined;
  }
  const { min, max } = bounds;
  return (v) => {
    if (typeof v !== 'string' || v.length < min) return false;
    if (v.length > max || v.length < 2 * min) {
      const n = codePoints(v);
      if (n < min || n > max) return false;
    }
    for (const p of patterns) {
      p.lastIndex = 0;
      if (!p.test(v)) return false;
    }
    return true;
  };
}

/** Narrows `bounds` by a min, max or exact length check; false for any other check. */
function narrowLength(bounds: { min: number; max: number }, c: { check: string } & Record<string, unknown>): boolean {
  if (c.check === 'min_length') bounds.min = Math.max(bounds.min, c.minimum as number);
  else if (c.check === 'max_length') bounds.max = Math.min(bounds.max, c.maximum as number);
  else if (c.check === 'length_equals') {
    bounds.min = Math.max(bounds.min, c.length as number);
    bounds.max = Math.min(bounds.max, c.length as number);
  } else return false;
  return true;
}

/** Code points as zod counts them: a high surrogate followed by a low one is one. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

function numberCheck(def: Record<string, unknown> & { checks?: z.core.$ZodCheck[] }): Check | undefined {
  let int = false;
  let lo = Number.NEGATIVE_INFINITY;
  let loInclusive = true;
  let hi = Number.POSITIVE_INFINITY;
  let hiInclusive = true;
  // z.int() is a number schema that is its own format check.
  if (def.check !== undefined) {
    if (def.check !== 'number_format' || def.format !== 'safeint') return undefined;
    int = true;
  }
  for (const c of checkDefs(def.checks ?? [])) {
    if (c.check === 'number_format' && c.format === 'safeint') int = true;
    else if (c.check === 'greater_than' && typeof c.value === 'number') {
      if (c.value > lo || (c.value === lo && !c.inclusive)) {
        lo = c.value;
        loInclusive = Boolean(c.inclusive);
      }
    } else if (c.check === 'less_than' && typeof c.value === 'number') {
      if (c.value < hi || (c.value === hi && !c.inclusive)) {
        hi = c.value;
        hiInclusive = Boolean(c.inclusive);
      }
    } else return undefined;
  }
  return (v) =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!int || Number.isSafeInteger(v)) &&
    (loInclusive ? v >= lo : v > lo) &&
    (hiInclusive ? v <= hi : v < hi);
}

function arrayCheck(def: Record<string, unknown> & { checks?: z.core.$ZodCheck[] }): Check | undefined {
  const bounds = { min: 0, max: Number.POSITIVE_INFINITY };
  for (const c of checkDefs(def.checks ?? [])) if (!narrowLength(bounds, c)) return undefined;
  const { min, max } = bounds;
  const element = compile(def.element as Schema);
  if (!element) return undefined;
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return false;
    for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
    return true;
  };
}

/**
 * An object whose keys are the shape's: a key the schema does not know would be dropped
 * (or refused, by a strict object), so such a value goes to zod. A loose object keeps
 * them as they are. A missing key is certain only for an optional field.
 */
function objectCheck(def: Record<string, unknown> & { checks?: z.core.$ZodCheck[] }): Check | undefined {
  if (!noChecks(def)) return undefined;
  const catchall = (def.catchall as Schema | undefined)?._zod.def.type;
  if (catchall !== undefined && catchall !== 'never' && catchall !== 'unknown') return undefined;
  const loose = catchall === 'unknown';
  const shape = def.shape as Record<string, Schema>;
  if (Object.getOwnPropertySymbols(shape).length > 0 || Object.hasOwn(shape, '__proto__')) return undefined;
  const keys = Object.keys(shape);
  const fields: Array<{ key: string; check: Check; optional: boolean }> = [];
  for (const key of keys) {
    const check = compile(shape[key]);
    if (!check) return undefined;
    fields.push({ key, check, optional: shape[key]._zod.def.type === 'optional' });
  }
  const known = new Set(keys);
  return (v) => {
    if (!isJsonObject(v)) return false;
    const o = v as Record<string, unknown>;
    for (const f of fields) {
      if (!Object.hasOwn(o, f.key)) {
        if (!f.optional) return false;
      } else if (!f.check(o[f.key])) return false;
    }
    if (loose) return !Object.hasOwn(o, '__proto__');
    for (const key in o) if (!known.has(key)) return false;
    return true;
  };
}

/** A record of string keys: each value checked, and `__proto__` (which zod leaves out) sent to zod. */
function recordCheck(def: Record<string, unknown> & { checks?: z.core.$ZodCheck[] }): Check | undefined {
  if (!noChecks(def) || def.mode !== undefined || def.partial) return undefined;
  const key = def.keyType as Schema;
  const keyDef = key._zod.def as unknown as Record<string, unknown>;
  if (keyDef.type !== 'string' || keyDef.coerce || keyDef.format !== undefined || keyDef.check !== undefined || !noChecks(keyDef)) {
    return undefined;
  }
  const value = compile(def.valueType as Schema);
  if (!value) return undefined;
  return (v) => {
    if (!isJsonObject(v)) return false;
    const o = v as Record<string, unknown>;
    for (const k in o) if (k === '__proto__' || !value(o[k])) return false;
    return true;
  };
}

/** An object as JSON.parse makes them: not null, not an array, Object's prototype. */
function isJsonObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}
