import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mailerApp } from '@/examples/mailer/app';
import { compileJsonFastCheck } from '@/lib/jobs/json-fast-check';
import { JOB_TYPE_NAMES, jobType } from '../../helpers/shipped-jobs';

/*
 * Every job type of both applications: what the worker's fast check takes
 * (lib/jobs/json-fast-check.ts), zod takes and gives back unchanged; and what the
 * dispatcher enqueues (the schema's own output) it takes without zod.
 */
const SEED = 20261128;
const types = [
  ...JOB_TYPE_NAMES.map((name) => ({ name, schema: jobType(name).schema, example: jobType(name).example as unknown })),
  ...mailerApp.jobs.map((j) => ({ name: j.name, schema: j.schema, example: j.example as unknown })),
];
const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** A payload one field from its type's dispatched example: a field dropped, or given another JSON value. */
function near(example: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(example), 'extra', '__proto__'];
  return fc.tuple(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 2 }), fc.boolean()).map(([key, value, drop]) => {
    const copy = JSON.parse(JSON.stringify(example)) as Record<string, unknown>;
    if (drop) delete copy[key];
    // Through JSON text, so that "__proto__" is an own key, as JSON.parse makes it.
    else
      return JSON.parse(
        `${JSON.stringify(copy).slice(0, -1)}${Object.keys(copy).length ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(value)}}`,
      );
    return copy;
  });
}

describe('the fast check on each job type’s payload schema', () => {
  it.each(types)('$name: takes the payload the dispatcher enqueues, and only what zod takes unchanged', ({ schema, example }) => {
    const check = compileJsonFastCheck(schema);
    if (!check) return;
    const dispatched = viaJson(schema.parse(example));
    expect(check(dispatched)).toBe(true);
    fc.assert(
      fc.property(fc.oneof(near(dispatched as Record<string, unknown>), fc.jsonValue({ maxDepth: 3 })), (value) => {
        if (!check(value)) return;
        const parsed = schema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(isDeepStrictEqual(parsed.success && parsed.data, value)).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('compiles the schemas of most types, the benchmark’s webhook-dispatch among them', () => {
    const compiled = types.filter((t) => compileJsonFastCheck(t.schema)).map((t) => t.name);
    expect(compiled).toContain('webhook-dispatch');
    expect(compiled.length).toBeGreaterThan(types.length / 2);
  });
});
