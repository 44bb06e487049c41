import path from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import type { APIRequestContext } from '@playwright/test';
import type { JOB_TYPE_NAMES } from '../helpers/shipped-jobs';
import { expect, test } from './fixtures';
import { appRoutes, buildActions, sourceActions, type ActionTarget } from './support/fuzz-targets';
import { changedKeys, keyspaceSnapshot } from './support/redis-snapshot';
import { RedisWriters } from './support/redis-writers';

/*
 * Property-based fuzzing of every server action and every page and route of the running
 * dashboard (issue 7's proof): whatever the input, the answer is a clear refusal or a
 * success, never a 500 or a dead server, and a refused call changes nothing in Redis.
 * Seeds are fixed per run and printed on failure (fast-check's report), so a failure
 * replays with the same inputs. The worker is stopped meanwhile, so the keyspace moves
 * only through what the calls do; the detector sees a rewrite, a delete or an expiry change
 * of any key, TTL or not (support/redis-snapshot.ts), and an allowed call must show one.
 */
const ROOT = path.resolve(__dirname, '../..');
/** Queues and a schedule no other spec uses: an input that happens to be valid acts on them only. */
const FUZZ_QUEUES = ['ewc-consolidation', 'index-rebalance'];
const FUZZ_SCHEDULE = 'memory-importance-decay';
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

const nasty = fc.constantFrom(
  ...FUZZ_QUEUES,
  FUZZ_SCHEDULE,
  'meta',
  'events',
  '..',
  '../../etc/passwd',
  '.',
  '__proto__',
  'constructor',
  'failed',
  'completed',
  'waiting',
  '*',
  '',
  ' ',
  '\u0000',
  'x'.repeat(5_000),
  '1',
  '-1',
  'dlq-000000000000000000000000',
  '0 */5 * * * *',
  'Mars/Olympus',
  'status=pending&type=webhook-dispatch',
);
const leaf = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }));
const KEYS = [
  'id',
  'ids',
  'entries',
  'name',
  'queue',
  'state',
  'states',
  'filter',
  'limit',
  'confirm',
  'payload',
  'expectedReplays',
  'jobId',
  'pattern',
  'tz',
  'data',
  'olderThanMs',
  'grace',
  'priority',
  'delay',
  'delayUnit',
  'orgId',
  'workspaceId',
  'concurrency',
  'max',
  'durationMs',
  '__proto__',
];
const record = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 });
const args = fc.oneof(
  fc.tuple(record),
  fc.tuple(value),
  fc.array(value, { maxLength: 3 }),
  fc.tuple(fc.constant(null), record),
  fc.constant([]),
);

interface Answer {
  status: number;
  body: string;
}

async function callAction(request: APIRequestContext, baseURL: string, action: ActionTarget, input: unknown): Promise<Answer> {
  const res = await request.post(action.page, {
    headers: { 'next-action': action.id, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin: baseURL },
    data: JSON.stringify(input),
    maxRedirects: 0,
    failOnStatusCode: false,
  });
  return { status: res.status(), body: await res.text() };
}

/**
 * The changes a call made, without those no call makes: once the dashboard process has sent
 * a cancel (cancel-job.spec.ts runs first), the cancel relay's heartbeat rewrites its node keys
 * and the relay's namespace list every 10 s (lib/runtime/cancel-relay.ts). Relay keys that
 * appear still count: a refused call must not start the relay.
 */
function byCalls(changes: string[]): string[] {
  return changes.filter((c) => !/^[~@].*::relay:(\{cancel\}:|namespaces$)/.test(c));
}

/** A success changes state by design; anything else is a refusal and must not. */
function succeeded(a: Answer): boolean {
  return a.status === 200 && a.body.includes('"ok":true');
}

test.describe.configure({ timeout: 600_000 });

test('the build lists every server action the source defines', () => {
  const built = buildActions(ROOT)
    .map((a) => `${a.file}#${a.name}`)
    .sort();
  expect(built).toEqual(sourceActions(ROOT));
});

test('every server action, fuzzed as an admin and as a viewer: no 500, and a refusal changes nothing', async ({
  e2e,
  contextAs,
  workerProcess,
  bullpen,
}) => {
  await workerProcess.stop();
  const redis = new Redis(e2e.env.REDIS_URL ?? `redis://127.0.0.1:${e2e.redisPort}`);
  const actions = buildActions(ROOT).filter((a) => a.name !== 'signOut' && a.name !== 'signIn');
  // A refusal that "changed Redis" names the client that wrote, so a background writer shows as one.
  const writers = await RedisWriters.watch(redis, e2e.prefix);
  try {
    // Positive control: an allowed call that changes state must show as a change, or the detector
    // below is blind and every "refusal changes nothing" passes for nothing.
    {
      const { context } = await contextAs('admin');
      const pause = actions.find((a) => a.name === 'pauseQueue')!;
      const resume = actions.find((a) => a.name === 'resumeQueue')!;
      const before = await keyspaceSnapshot(redis, e2e.prefix);
      const paused = await callAction(context.request, e2e.baseURL, pause, [{ queue: FUZZ_QUEUES[0] }]);
      expect(succeeded(paused), `pauseQueue answered ${paused.status}: ${paused.body.slice(0, 300)}`).toBe(true);
      expect(changedKeys(before, await keyspaceSnapshot(redis, e2e.prefix)), 'an allowed pause showed no change').not.toEqual([]);
      expect(succeeded(await callAction(context.request, e2e.baseURL, resume, [{ queue: FUZZ_QUEUES[0] }]))).toBe(true);
      await context.close();
    }
    for (const role of ['viewer', 'admin'] as const) {
      const { context } = await contextAs(role);
      for (const action of actions) {
        let snapshot = await keyspaceSnapshot(redis, e2e.prefix);
        await fc.assert(
          fc.asyncProperty(args, async (input) => {
            const answer = await callAction(context.request, e2e.baseURL, action, input);
            expect(answer.status, `${action.name} answered ${answer.status}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
            if (role === 'viewer') expect([401, 403]).toContain(answer.status);
            const after = await keyspaceSnapshot(redis, e2e.prefix);
            const changes = succeeded(answer) ? [] : byCalls(changedKeys(snapshot, after));
            if (changes.length > 0) {
              const who = (await writers.touching(changes, snapshot.takenAt)).join('\n') || '(none MONITOR saw)';
              expect(changes, `${action.name} refused (${answer.status}) but changed Redis; the commands that touched it:\n${who}`).toEqual(
                [],
              );
            }
            snapshot = after;
          }),
          { numRuns: role === 'admin' ? 12 : 4, seed: SEED, endOnFailure: true },
        );
      }
      await context.close();
    }
    // The server is still up and answers as before (health is 503 while the worker is stopped, by design).
    expect((await fetch(`${e2e.baseURL}/sign-in`)).status).toBe(200);
  } finally {
    writers.stop();
    redis.disconnect();
    for (const name of FUZZ_QUEUES) {
      const q = bullpen.queues.get(name as (typeof JOB_TYPE_NAMES)[number]);
      await q.resume();
      await q.removeGlobalConcurrency();
      await q.removeGlobalRateLimit();
    }
    await bullpen.schedules.resetToDefault(FUZZ_SCHEDULE, 'e2e-fuzz').catch(() => undefined);
    await workerProcess.start();
  }
});

test('sign-in fuzzed anonymously: refused with a message, never a 500, never a session', async ({ e2e, playwright }) => {
  const signIn = buildActions(ROOT).find((a) => a.name === 'signIn')!;
  const request = await playwright.request.newContext({ baseURL: e2e.baseURL });
  try {
    await fc.assert(
      fc.asyncProperty(args, async (input) => {
        const answer = await callAction(request, e2e.baseURL, signIn, input);
        expect(answer.status).toBeLessThan(500);
        expect(answer.body).not.toContain('"ok":true');
        const cookies = await request.storageState();
        expect(cookies.cookies.filter((c) => c.name === 'bullpen_session')).toEqual([]);
      }),
      { numRuns: 25, seed: SEED },
    );
  } finally {
    await request.dispose();
  }
});

test('every page and route, with fuzzed path segments and search params: never a 500', async ({ e2e, contextAs, playwright }) => {
  const { context } = await contextAs('admin');
  const anonymous = await playwright.request.newContext({ baseURL: e2e.baseURL });
  const routes = appRoutes(ROOT);
  expect(routes.length).toBeGreaterThan(15);
  const segment = fc.oneof(
    fc.constantFrom('webhook-dispatch', 'meta', 'events', '..', '%2e%2e', '%00', 'x'.repeat(600), '1', 'dlq-0', '%E2%9C%93'),
    fc.string({ minLength: 1, maxLength: 30 }),
  );
  const params = fc.dictionary(
    fc.constantFrom(
      'state',
      'page',
      'status',
      'type',
      'tenant',
      'errorClass',
      'from',
      'to',
      'q',
      'logs',
      'pattern',
      'tz',
      'count',
      'cursor',
      'x',
    ),
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('-1', '999999999999', 'NaN', 'failed', 'pending', '2026-13-45', '0 * * * * *', 'Mars/Olympus'),
    ),
    { maxKeys: 4 },
  );
  try {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: route.segments.length, maxLength: route.segments.length }),
          params,
          async (values, query) => {
            let i = 0;
            const pathname = route.pattern.replace(/\[[^\]]+\]/g, () => encodeURIComponent(values[i++]));
            const url = `${pathname === '/' ? '' : pathname}?${new URLSearchParams(query).toString()}`.replace(/^\?/, '/?');
            for (const request of [context.request, anonymous]) {
              const res = await request.get(url, { maxRedirects: 0, failOnStatusCode: false });
              // /api/health answers 503 by design when the product is unhealthy.
              const ok = res.status() < 500 || (route.pattern === '/api/health' && res.status() === 503);
              expect(ok, `GET ${url} answered ${res.status()}`).toBe(true);
            }
          },
        ),
        { numRuns: 8, seed: SEED },
      );
    }
  } finally {
    await anonymous.dispose();
    await context.close();
  }
});
