import { SHIPPED_CATALOG } from '../../helpers/shipped-jobs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPayloadText, checkPayloadValue } from '@/dashboard/client/dead-letters-payload';
import { AppError } from '@/lib/errors/app-error';
import { Dispatcher, dispatchOptionsSchema } from '@/lib/jobs/dispatcher';
import type { QueueRegistry } from '@/lib/jobs/queues';
import { JOB_TYPE_NAMES, jobType, type JobTypeName } from '../../helpers/shipped-jobs';
import { parseCliArgs, UsageError } from '@/scripts/dlq';

/*
 * Property-based fuzzing of the inputs that do not need a server (issue 7's proof; the
 * server actions and routes are fuzzed against the running dashboard in
 * tests/e2e/fuzz-actions.spec.ts): a clear refusal or a result, never a crash.
 */
const SEED = 20261124;

/** A queue registry that records what reaches it instead of talking to Redis. */
function recordingQueues(added: unknown[]): QueueRegistry {
  const queue = {
    add: async (name: string, data: unknown) => {
      added.push(data);
      return { id: `job-${added.length}`, name };
    },
    addBulk: async (jobs: Array<{ data: unknown }>) => jobs.map((j) => (added.push(j.data), { id: `job-${added.length}` })),
  };
  return { jobs: SHIPPED_CATALOG, get: () => queue } as unknown as QueueRegistry;
}

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withNullPrototype: true,
  }),
  fc.constantFrom(
    { __proto__: { orgId: 'x' } },
    JSON.parse('{"__proto__":{"polluted":true}}'),
    { constructor: { prototype: { polluted: true } } },
    'x'.repeat(100_000),
  ),
);

/**
 * A payload of `type` one field away from valid: its own example (which the job table
 * checks against its schema) with one field deleted, retyped or replaced by something hostile.
 */
function mutated(type: JobTypeName): fc.Arbitrary<unknown> {
  const base = jobType(type).example as Record<string, unknown>;
  const keys = [...Object.keys(base), 'orgId', 'workspaceId', 'webhookId', 'namespace', 'items', 'payload'];
  return fc.tuple(fc.constantFrom(...keys), hostile, fc.boolean()).map(([key, v, drop]) => {
    const copy: Record<string, unknown> = { ...base };
    if (drop) delete copy[key];
    else copy[key] = v;
    return copy;
  });
}

/** Dispatch options the dispatcher accepts, so the payload is what decides. */
const validOptions = fc.option(
  fc.record(
    {
      priority: fc.constantFrom('CRITICAL', 'HIGH', 'MEDIUM', 'LOW'),
      attempts: fc.integer({ min: 1, max: 100 }),
      delayMs: fc.integer({ min: 0, max: 3_600_000 }),
      tenant: fc.constant({ orgId: 'org-1' }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

describe('every job type’s payload schema', () => {
  it.each(JOB_TYPE_NAMES)('%s: safeParse and the editor’s check never throw', (type) => {
    /** How many of the payloads one field from valid passed: some must, or they were never near valid. */
    let nearPassed = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          hostile.map((v) => ({ near: false, v })),
          mutated(type).map((v) => ({ near: true, v })),
        ),
        ({ near, v }) => {
          expect(() => jobType(type).schema.safeParse(v)).not.toThrow();
          const check = checkPayloadValue(SHIPPED_CATALOG, type, v, v);
          expect(typeof check.ok).toBe('boolean');
          if (!check.ok) expect(check.message.length).toBeGreaterThan(0);
          if (near && check.ok) nearPassed++;
        },
      ),
      { numRuns: 150, seed: SEED },
    );
    expect(nearPassed).toBeGreaterThan(0);
  });

  it('the editor’s JSON check never throws on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })),
        fc.constantFrom(...JOB_TYPE_NAMES, 'nope'),
        (text, type) => {
          const check = checkPayloadText(SHIPPED_CATALOG, type, text);
          expect(typeof check.ok).toBe('boolean');
        },
      ),
      { numRuns: 500, seed: SEED },
    );
    // 500 fixed runs of CPU-bound parsing: about 2 s alone, but 12 s on two cores shared with
    // the integration suite. The work is bounded by numRuns; vitest's 5 s default is not a bound of it.
  }, 60_000);
});

describe('the dispatcher', () => {
  it('enqueues only what validates; everything else is an AppError naming the problem, and nothing reaches a queue', async () => {
    const RUNS = 400;
    /** Cases with a known type and valid options, where the payload alone decides: accepted, refused. */
    const decided = { accepted: 0, refused: 0 };
    const known = fc.constantFrom(...JOB_TYPE_NAMES);
    const payloadDecides = known.chain((type) =>
      fc.tuple(fc.constant<string>(type), fc.oneof(mutated(type), fc.constant(jobType(type).example), hostile), validOptions),
    );
    const anything = fc.tuple(fc.constantFrom<string>(...JOB_TYPE_NAMES, 'nope', '__proto__'), hostile, hostile);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: payloadDecides }, { weight: 1, arbitrary: anything }),
        async ([type, data, opts]) => {
          const added: unknown[] = [];
          const dispatcher = new Dispatcher(recordingQueues(added), new Set(JOB_TYPE_NAMES));
          const clean =
            (JOB_TYPE_NAMES as readonly string[]).includes(type) && dispatchOptionsSchema.safeParse(opts === undefined ? {} : opts).success;
          const valid = clean && jobType(type as JobTypeName).schema.safeParse(data).success;
          try {
            await dispatcher.dispatch(type as JobTypeName, data as never, opts as never);
            // Accepted: the type is known, and the options and the payload really are valid.
            expect(valid).toBe(true);
            expect(added).toHaveLength(1);
            decided.accepted++;
          } catch (err) {
            expect(err).toBeInstanceOf(AppError);
            expect((err as AppError).message.length).toBeGreaterThan(0);
            expect(added).toHaveLength(0);
            // Refused: something really is wrong, and with clean options it is the payload.
            expect(valid).toBe(false);
            if (clean) {
              expect((err as AppError).message).toMatch(new RegExp(`^Invalid ${type} payload`));
              decided.refused++;
            }
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    console.log(`dispatcher fuzz: of ${RUNS} runs, the payload decided ${decided.accepted} accepted and ${decided.refused} refused`);
    // The payload's validation decided most cases, both ways (about 3/4 of the runs have a
    // known type and clean options; a third of those the type's own example).
    expect(decided.accepted + decided.refused).toBeGreaterThanOrEqual(RUNS / 2);
    expect(decided.accepted).toBeGreaterThanOrEqual(RUNS / 10);
    expect(decided.refused).toBeGreaterThanOrEqual(RUNS / 10);
  });
});

describe('the DLQ CLI’s arguments', () => {
  const words = fc.oneof(
    fc.constantFrom(
      'list',
      'replay',
      'discard',
      'purge',
      '--status',
      '--type',
      '--tenant',
      '--error-class',
      '--id',
      '--limit',
      '--json',
      '--yes',
      '--help',
      '-h',
      '--',
      '--limit=5',
      'pending',
      'webhook-dispatch',
      '..',
      '-1',
      '1e9',
      '',
    ),
    fc.string({ maxLength: 20 }),
  );
  it('any argv is a parsed command, help, or a UsageError with a message', () => {
    fc.assert(
      fc.property(fc.array(words, { maxLength: 8 }), (argv) => {
        try {
          const parsed = parseCliArgs(argv, JOB_TYPE_NAMES);
          expect(parsed === 'help' || typeof parsed.command === 'string').toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(UsageError);
          expect((err as Error).message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2_000, seed: SEED },
    );
  });
});
