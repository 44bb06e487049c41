import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileJsonFastCheck } from '@/lib/jobs/json-fast-check';

/*
 * The fast check may only say "zod takes this and gives it back unchanged" when zod
 * does (lib/jobs/json-fast-check.ts): held here against zod itself, on values parsed
 * from JSON, for each kind of schema it compiles.
 */
const SEED = 20261128;
const RUNS = 400;

/** What the check promises, for one value: true means zod accepts it and returns an equal value. */
function agrees(schema: z.ZodType, value: unknown): { fast: boolean } {
  const fast = compileJsonFastCheck(schema)?.(value) ?? false;
  if (fast) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new Error(`fast check took what zod refuses: ${JSON.stringify(value)}: ${parsed.error.message}`);
    if (!isDeepStrictEqual(parsed.data, value)) {
      throw new Error(`fast check took what zod changes: ${JSON.stringify(value)} -> ${JSON.stringify(parsed.data)}`);
    }
  }
  return { fast };
}

/** A value as a job's data arrives: through JSON. */
const json = <T>(arb: fc.Arbitrary<T>) => arb.map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/**
 * Strings near the bounds, in both kinds of UTF-16: one unit a character, and two (a
 * surrogate pair); and lone surrogates, which JSON carries as escapes.
 */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.array(fc.constantFrom('a', '😀', 'é', 'Z', '0'), { maxLength: 8 }).map((a) => a.join('')),
  fc.array(fc.constantFrom('a', '\ud83d', '\ude00', '😀'), { maxLength: 6 }).map((a) => a.join('')),
);
/** The cases' bounds, and one either side: a check that gets a bound's edge wrong meets them. */
const EDGES = [-1, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 999, 1_000, 1_001, 2 ** 31 - 1, 2 ** 31, 2 ** 40];
const number = fc.oneof(
  fc.integer({ min: -5, max: 1_005 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1.5, 5.5, 9.5, 2 ** 53, -(2 ** 53), ...EDGES),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
/** Any JSON value, or a value of a field's kind: about half the generated objects are near the shape. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

/**
 * Objects around a shape: each key's value from its own arbitrary (valid values and some
 * that are not), some keys left out, and now and then a key the shape does not have.
 */
function objectsNear(fields: Record<string, fc.Arbitrary<unknown>>) {
  const keys = Object.keys(fields);
  const extra = fc.option(fc.tuple(fc.constantFrom('extra', '__proto__', 'constructor', ...keys), scalar), { freq: 4 });
  return json(
    fc.tuple(fc.record(fields, { requiredKeys: [] }), extra).map(([o, more]) => {
      if (!more) return o;
      // Through JSON text, so that a "__proto__" key is an own key, as JSON.parse makes it.
      const entries = [...Object.entries(o).filter(([k]) => k !== more[0]), more];
      return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`);
    }),
  );
}
/** Mostly values of `valid`, sometimes anything. */
const mostly = (valid: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: scalar, weight: 1 });

const cases: Array<{ name: string; schema: z.ZodType; values: fc.Arbitrary<unknown>; someTaken?: boolean }> = [
  {
    name: 'strings with length bounds and a pattern',
    schema: z
      .string()
      .min(2)
      .max(5)
      .regex(/^[a-z😀é]*$/iu),
    values: json(text),
  },
  { name: 'a string of one exact length', schema: z.string().length(3), values: json(text) },
  { name: 'a non-empty string', schema: z.string().min(1), values: json(text) },
  { name: 'integers within bounds', schema: z.number().int().min(1).max(1_000), values: json(number) },
  { name: 'z.int() and exclusive bounds', schema: z.int().gt(0).lt(10), values: json(number) },
  { name: 'numbers', schema: z.number().nonnegative(), values: json(number) },
  {
    name: 'several bounds on one side: the tightest holds, exclusive over inclusive at the same value',
    schema: z.number().min(1).gte(5).gt(5).max(10).lte(8).lt(8),
    values: json(number),
  },
  { name: 'the same bound inclusive after exclusive', schema: z.number().gt(5).gte(5).lt(8).lte(8), values: json(number) },
  {
    name: 'booleans, null, literals, enums',
    schema: z.object({ b: z.boolean(), n: z.null(), l: z.literal('x'), e: z.enum(['a', 'b']) }),
    values: objectsNear({
      b: mostly(fc.boolean()),
      n: mostly(fc.constant(null)),
      l: mostly(fc.constantFrom('x', 'y')),
      e: mostly(fc.constantFrom('a', 'b', 'c')),
    }),
  },
  {
    name: 'an object with optional, nullable and defaulted fields, extra keys stripped',
    schema: z.object({ id: z.string().min(1), note: z.string().optional(), at: z.number().nullable(), on: z.boolean().default(false) }),
    values: objectsNear({ id: mostly(text), note: mostly(text), at: mostly(fc.option(number, { nil: null })), on: mostly(fc.boolean()) }),
  },
  {
    name: 'a strict object',
    schema: z.strictObject({ a: z.string(), b: z.number().optional() }),
    values: objectsNear({ a: mostly(text), b: mostly(number) }),
  },
  { name: 'a loose object', schema: z.looseObject({ a: z.string() }), values: objectsNear({ a: mostly(text) }) },
  {
    name: 'a record of anything (webhook-dispatch’s payload)',
    schema: z.record(z.string(), z.unknown()),
    values: fc.oneof(objectsNear({ t: anyJson, n: anyJson }), json(anyJson)),
  },
  {
    name: 'a record of numbers',
    schema: z.record(z.string(), z.number()),
    values: objectsNear({ a: mostly(number), b: mostly(number), c: mostly(number) }),
  },
  {
    name: 'arrays with bounds',
    schema: z.array(z.string().max(3)).min(1).max(3),
    values: json(fc.array(fc.oneof({ arbitrary: fc.string({ maxLength: 3 }), weight: 4 }, text, number), { maxLength: 5 })),
  },
  {
    name: 'fields of any kind, present or not',
    schema: z.object({ u: z.unknown(), a: z.any(), o: z.unknown().optional() }),
    values: objectsNear({ u: anyJson, a: anyJson, o: anyJson }),
  },
  {
    name: 'nested objects in arrays in objects',
    schema: z.object({ items: z.array(z.object({ sku: z.string().min(1).max(8), qty: z.int().positive() })).max(4) }),
    values: json(
      fc.record({ items: fc.array(fc.record({ sku: text, qty: number }, { requiredKeys: [] }), { maxLength: 5 }) }, { requiredKeys: [] }),
    ),
  },
];

describe('the payload fast check (lib/jobs/json-fast-check.ts)', () => {
  it.each(cases)('$name: takes only what zod takes and gives back unchanged, and takes some', ({ schema, values }) => {
    expect(compileJsonFastCheck(schema)).toBeTypeOf('function');
    let taken = 0;
    let zodTook = 0;
    fc.assert(
      fc.property(fc.oneof(values, json(anyJson)), (value) => {
        if (agrees(schema, value).fast) taken++;
        if (schema.safeParse(value).success) zodTook++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Not a check that says no to everything: most of what zod takes unchanged, it takes.
    expect(zodTook).toBeGreaterThan(0);
    expect(taken).toBeGreaterThan(0);
  });

  it('leaves to zod what zod would change or refuse, with zod’s answer', () => {
    const schema = z.object({ id: z.string().min(2), on: z.boolean().default(false), tags: z.array(z.string()).optional() });
    const check = compileJsonFastCheck(schema);
    expect(check?.({ id: 'ab', on: true })).toBe(true);
    expect(check?.({ id: 'ab', on: true, tags: ['x'] })).toBe(true);
    // A default to fill in, a key to strip, a __proto__ key zod leaves out.
    expect(check?.({ id: 'ab' })).toBe(false);
    expect(check?.({ id: 'ab', on: true, extra: 1 })).toBe(false);
    expect(check?.(JSON.parse('{"id":"ab","on":true,"__proto__":{"x":1}}'))).toBe(false);
    // One code point in two UTF-16 units: zod counts code points, so "😀" is too short.
    expect(check?.({ id: '😀', on: true })).toBe(false);
    expect(schema.safeParse({ id: '😀', on: true }).success).toBe(false);
    // A value left out of a schema with a default: zod fills it in.
    expect(compileJsonFastCheck(z.string().default('x'))?.(undefined)).toBe(false);
    // Refused outright: the wrong kind.
    expect(check?.({ id: 7, on: true })).toBe(false);
    expect(check?.(null)).toBe(false);
    expect(check?.([{ id: 'ab', on: true }])).toBe(false);
  });

  it('compiles nothing for a schema with a part it does not know: that type is always parsed by zod', () => {
    const unknown = [
      z.string().email(),
      z.email(),
      z.string().trim(),
      z.string().startsWith('a'),
      z.coerce.number(),
      z.number().multipleOf(5),
      z.int32(),
      z.number().check(z.int32()),
      z.boolean().refine((b) => b),
      z.enum(['a', 'b']).refine((e) => e === 'a'),
      z.union([z.string(), z.number()]),
      z.object({ a: z.string() }).refine(() => true),
      z.object({ a: z.string().transform((s) => s.length) }),
      z.object({ a: z.string().exactOptional() }),
      z.object({ a: z.string().default('x').optional() }),
      z.object({ a: z.string() }).catchall(z.string()),
      z.record(z.enum(['a', 'b']), z.string()),
      z.record(z.string().min(2), z.string()),
      z.date(),
    ];
    for (const schema of unknown) expect(compileJsonFastCheck(schema as z.ZodType), String(schema._zod.def.type)).toBeUndefined();
  });
});
