import { useTestRedis } from '../../helpers/use-test-redis';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { HandlerMap, JobHandler } from '@/lib/runtime/handler';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';
import { JOB_TYPE_NAMES, jobType, lockedFieldsOf, type JobTypeName } from '../../helpers/shipped-jobs';

/*
 * Edit-and-replay with an idempotency key, for every type of the shipped application
 * (issue 20: "with every type that takes an idempotency key"; every type takes one at
 * dispatch). Each type's handler is replaced by one that refuses anything but the edit,
 * so what is checked is the runtime's promise for each type's schema and locked fields:
 * the edit runs under a key of its own, and no retry path runs the original again
 * (docs/dead-letters.md, "Replay keys"). webhook-dispatch's own delivery ids are
 * tests/integration/replay-keys.test.ts.
 */

interface Call {
  jobId: string;
  data: unknown;
  idempotencyKey?: string;
}

const server = useTestRedis();
let bullpen: Bullpen;
let pool: WorkerPool;
const calls = new Map<string, Call[]>();
/** Per type, the (parsed) payload its handler accepts; anything else fails for good. */
const accepted = new Map<string, unknown>();

/** The tenant fields every type locks (lib/jobs/locked-fields.ts). */
const ALWAYS_LOCKED = ['orgId', 'workspaceId'];

/** Values one step from `v` that a schema may still accept, nested objects and arrays included. */
function nudges(v: unknown, depth = 0): unknown[] {
  if (typeof v === 'string') return [`${v}x`, `${v}1`, v.slice(0, -1), v.toUpperCase(), v.toLowerCase()];
  if (typeof v === 'number') return [v + 1, v - 1, v / 2, v * 2];
  if (typeof v === 'boolean') return [!v];
  if (depth > 2) return [];
  if (Array.isArray(v)) {
    const inner = v.length > 0 ? nudges(v[0], depth + 1).map((first) => [first, ...v.slice(1)]) : [];
    return [...inner, ...(v.length > 1 ? [v.slice(0, -1)] : [])];
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.keys(o).flatMap((k) => nudges(o[k], depth + 1).map((next) => ({ ...o, [k]: next })));
  }
  return [];
}

/**
 * A valid edit of the type's example (defaults filled in, as the replay editor shows it)
 * that changes no locked field: what an operator would type. Undefined when the payload
 * has nothing an edit may change (a type with no field but the locked ones).
 */
function editOf(name: JobTypeName): Record<string, unknown> | undefined {
  const def = jobType(name);
  const original = def.schema.parse(def.example) as Record<string, unknown>;
  const locked = new Set([...lockedFieldsOf(name), ...ALWAYS_LOCKED]);
  for (const [field, value] of Object.entries(original)) {
    if (locked.has(field)) continue;
    for (const next of nudges(value)) {
      const candidate = { ...original, [field]: next };
      const parsed = def.schema.safeParse(candidate);
      if (parsed.success && !isDeepStrictEqual(parsed.data, original)) return candidate;
    }
  }
  return undefined;
}

function recording(name: string): JobHandler<unknown, unknown> {
  return async (ctx) => {
    const list = calls.get(name) ?? [];
    list.push({ jobId: ctx.jobId, data: ctx.data, idempotencyKey: ctx.idempotencyKey });
    calls.set(name, list);
    // The first run fails; after that only the mended payload runs (or, for a type with
    // nothing to edit, the unchanged replay).
    if (list.length === 1 || !isDeepStrictEqual(ctx.data, accepted.get(name))) {
      throw new PermanentError('not the mended payload', 'TEST_REFUSED');
    }
    return { ok: true };
  };
}

beforeAll(async () => {
  bullpen = makeBullpen(server.redis);
  const handlers: HandlerMap = {};
  for (const name of JOB_TYPE_NAMES) handlers[name] = recording(name);
  pool = poolOf(bullpen, handlers);
  await pool.start();
});
afterAll(async () => {
  await pool?.close(5_000);
  await bullpen?.close();
});

async function waitForState(type: string, jobId: string, state: 'completed' | 'failed', timeoutMs = 15_000) {
  const queue = bullpen.queues.get(type);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await queue.getJobState(jobId);
    if (s === state) return;
    if (Date.now() > deadline) throw new Error(`${type} job ${jobId} is ${s}, not ${state}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function pendingLetter(type: string, jobId: string): Promise<DeadLetterEntry> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const e = await bullpen.dlq.getByJob(type, jobId);
    if (e?.status === 'pending') return e;
    if (Date.now() > deadline) throw new Error(`no pending dead letter for ${type} job ${jobId} (${e?.status})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Each path's answer, or its refusal's message: none of them may run the original. */
async function settle<T>(p: Promise<T>): Promise<T | string> {
  return p.catch((err: Error) => err.message);
}

describe('edit-and-replay under an idempotency key, every shipped type', () => {
  it('lists every type of the table', () => {
    expect(JOB_TYPE_NAMES.length).toBeGreaterThan(0);
  });

  it.each([...JOB_TYPE_NAMES])('%s: an edit runs once under a key of its own; no retry path runs the original again', async (name) => {
    const def = jobType(name);
    const edited = editOf(name);
    const original = def.schema.parse(def.example);
    accepted.set(name, edited ? def.schema.parse(edited) : original);
    const key = `every-type:${name}:v1`;

    const { jobId } = await bullpen.dispatcher.dispatch(name, def.example as never, { idempotencyKey: key, attempts: 1 });
    await waitForState(name, jobId, 'failed');
    const letter = await pendingLetter(name, jobId);

    // A type with nothing to edit is replayed unchanged: that keeps the original key.
    const replayed = await bullpen.dlq.replay(letter.id, { by: 'op', ...(edited ? { payload: edited } : {}), expectedReplays: 0 });
    const replayJobId = replayed.replays[0].newJobId;
    await waitForState(name, replayJobId, 'completed');
    const replayRun = calls.get(name)!.find((c) => c.jobId === replayJobId)!;
    expect(replayRun.data).toEqual(accepted.get(name));
    expect(replayRun.idempotencyKey).toBe(edited ? `${key}:${replayJobId}` : key);

    // Every path an operator has afterwards: the job page's Retry, the row's, "Retry all
    // failed" (destructive types are refused there), and another DLQ replay.
    const page = await settle(new JobOperations(bullpen).retry(name, jobId, 'op'));
    const row = await settle(new QueueOperations(bullpen).retrySelected(name, [jobId], 'op'));
    const all = await settle(new QueueOperations(bullpen).retryAllFailed(name, 'op'));
    if (!def.destructive) {
      expect(page).toMatch(/was not retried/);
      expect(row).toMatchObject({ succeeded: 0 });
      expect(all).toMatchObject({ succeeded: 0 });
    }
    const entry = (await bullpen.dlq.get(letter.id))!;
    expect(entry.payload).toEqual(accepted.get(name));
    const again = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: entry.replays.length });
    await waitForState(name, again.replays[again.replays.length - 1].newJobId, 'completed');
    await new Promise((r) => setTimeout(r, 300));

    const runs = calls.get(name)!;
    expect(runs[0]).toMatchObject({ jobId, idempotencyKey: key });
    // The original ran once, as the first job; every later run was the mended payload.
    if (edited) expect(runs.filter((c) => isDeepStrictEqual(c.data, original)).map((c) => c.jobId)).toEqual([jobId]);
    expect(runs.slice(1).every((c) => c.jobId !== jobId && isDeepStrictEqual(c.data, accepted.get(name)))).toBe(true);
    expect(runs).toHaveLength(3);
  });

  it('finds an edit for most types: the check above is not only the unchanged replay', () => {
    const editable = JOB_TYPE_NAMES.filter((n) => editOf(n) !== undefined);
    expect(editable.length).toBeGreaterThanOrEqual(JOB_TYPE_NAMES.length / 2);
  });
});
