import { SHIPPED_CATALOG } from '../../helpers/shipped-jobs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPayloadText, checkPayloadValue } from '@/dashboard/client/dead-letters-payload';
import { AppError } from '@/lib/errors/app-error';
import { Dispatcher } from '@/lib/jobs/dispatcher';
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

/** A valid-looking payload of `type` with one field deleted, retyped or replaced by something hostile. */
function mutated(type: JobTypeName): fc.Arbitrary<unknown> {
  const base = (jobType(type).schema.safeParse({}).success ? jobType(type).schema.parse({}) : {}) as Record<string, unknown>;
  const keys = [...Object.keys(base), 'orgId', 'workspaceId', 'webhookId', 'namespace', 'items', 'payload'];
  return fc.tuple(fc.constantFrom(...keys), hostile, fc.boolean()).map(([key, v, drop]) => {
    const copy: Record<string, unknown> = { ...base };
    if (drop) delete copy[key];
    else copy[key] = v;
    return copy;
  });
}

describe('every job type’s payload schema', () => {
  it.each(JOB_TYPE_NAMES)('%s: safeParse and the editor’s check never throw', (type) => {
    fc.assert(
      fc.property(fc.oneof(hostile, mutated(type)), (value) => {
        expect(() => jobType(type).schema.safeParse(value)).not.toThrow();
        const check = checkPayloadValue(SHIPPED_CATALOG, type, value, value);
        expect(typeof check.ok).toBe('boolean');
        if (!check.ok) expect(check.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 150, seed: SEED },
    );
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
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...JOB_TYPE_NAMES, 'nope', '__proto__'), hostile, hostile, async (type, data, opts) => {
        const added: unknown[] = [];
        const dispatcher = new Dispatcher(recordingQueues(added), new Set(JOB_TYPE_NAMES));
        try {
          await dispatcher.dispatch(type as JobTypeName, data as never, opts as never);
          // Accepted: the payload really is valid for its type.
          expect(jobType(type as JobTypeName).schema.safeParse(data).success).toBe(true);
          expect(added).toHaveLength(1);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).message.length).toBeGreaterThan(0);
          expect(added).toHaveLength(0);
        }
      }),
      { numRuns: 400, seed: SEED },
    );
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
