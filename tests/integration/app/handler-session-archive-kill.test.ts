import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import { SessionArchiveStore } from '@/jobs/session/sessions/session-archive-store';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import { createSessionArchiveHandler, type SessionArchiveResult } from '@/jobs/session/session-archive';
import type { Session } from '@/jobs/session/sessions/session';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { uniquePrefix } from '../../helpers/redis';
import { type SpawnedWorker, spawnFixture } from '../../helpers/spawn-worker';
import { makeSessions } from '../../fixtures/app/sessions';

const DAY = 24 * 60 * 60 * 1000;
const BATCH = 10;
/** The process dies after writing this batch, before deleting it. */
const KILL_AT = 3;
const server = useTestRedis();
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'bullpen-archive-kill-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});
/** Processes a test started; one a failed assertion left running is killed. */
const spawned: SpawnedWorker[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});

/** Lines per session id across every archive file. */
async function linesPerId(root: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const org of await readdir(root).catch(() => [] as string[])) {
    for (const f of await readdir(path.join(root, org))) {
      const text = await readFile(path.join(root, org, f), 'utf8');
      // A torn line would fail to parse here: every line must be whole.
      for (const line of text.split('\n').filter(Boolean)) {
        const id = (JSON.parse(line) as { id: string }).id;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    }
  }
  return counts;
}

/** A Bullpen on a fresh prefix and data directory holding 250 sessions idle for ten days, over two organisations. */
async function seeded(name: string): Promise<{ bullpen: Bullpen; dataDir: string; all: Session[]; remaining: () => Promise<number> }> {
  const prefix = uniquePrefix(name);
  const dataDir = path.join(tmp, name);
  const bullpen = makeBullpen(server.redis, { prefix, env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  const sessions = new SessionStore(bullpen.redis, bullpen.keys);
  const now = Date.now();
  const all = [
    ...makeSessions({ tenant: { orgId: 'acme' }, count: 150, idleMs: 10 * DAY, now, prefix: 'a' }),
    ...makeSessions({ tenant: { orgId: 'globex', workspaceId: 'w' }, count: 100, idleMs: 10 * DAY, now, prefix: 'g' }),
  ];
  await Promise.all(all.map((s) => sessions.save(s)));
  const remaining = async () => (await sessions.countByTenant({ orgId: 'acme' })) + (await sessions.countByTenant({ orgId: 'globex' }));
  return { bullpen, dataDir, all, remaining };
}

/**
 * What a process killed between batch KILL_AT's write and its delete leaves: the batch
 * recorded in flight, on disk once, and still live; the batches before it archived and
 * deleted. Returns the ids of the batch in flight.
 */
async function expectKilledBetweenWriteAndDelete(bullpen: Bullpen, dataDir: string, all: Session[]): Promise<string[]> {
  const raw = await bullpen.redis.get(SessionArchiveStore.inFlightKeyOf(bullpen.keys));
  expect(raw, 'no batch was left in flight').toBeTruthy();
  const inFlight = JSON.parse(raw!) as { ids: string[] };
  expect(inFlight.ids).toHaveLength(BATCH);
  const counts = await linesPerId(SessionArchiveStore.rootFor(dataDir));
  expect(counts.size).toBe(KILL_AT * BATCH);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
  const sessions = new SessionStore(bullpen.redis, bullpen.keys);
  for (const id of inFlight.ids) {
    expect(counts.get(id), `${id} of the batch in flight is not on disk`).toBe(1);
    expect(await sessions.get(id), `${id} of the batch in flight was deleted`).toBeDefined();
  }
  const live = await Promise.all(all.map((s) => sessions.get(s.id)));
  expect(live.filter(Boolean)).toHaveLength(all.length - (KILL_AT - 1) * BATCH);
  return inFlight.ids;
}

/** Every session archived exactly once, none left live, nothing in flight. */
async function expectArchivedExactlyOnce(
  bullpen: Bullpen,
  dataDir: string,
  all: Session[],
  remaining: () => Promise<number>,
): Promise<void> {
  const counts = await linesPerId(SessionArchiveStore.rootFor(dataDir));
  expect(counts.size).toBe(all.length);
  expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
  expect(new Set(counts.keys())).toEqual(new Set(all.map((s) => s.id)));
  expect(await remaining()).toBe(0);
  expect(await bullpen.redis.exists(SessionArchiveStore.inFlightKeyOf(bullpen.keys))).toBe(0);
}

describe('session-archive killed between a batch’s write and its delete', () => {
  it('the handler run again recovers that batch (deletes it without writing it again) and archives every session exactly once', async () => {
    const { bullpen, dataDir, all, remaining } = await seeded('kill-handler');
    const child = spawnFixture('app/session-archive-child.ts', {
      REDIS_PORT: String(server.redis.port),
      BULLPEN_PREFIX: bullpen.keys.root,
      BULLPEN_DATA_DIR: dataDir,
      JOB_ID: 'archive-1',
      BATCH_SIZE: String(BATCH),
      KILL_AT_BATCH: String(KILL_AT),
    });
    spawned.push(child);
    expect(await child.exited, child.output()).toBeNull();
    expect(child.output()).toContain(`killed after writing batch ${KILL_AT}, before deleting it`);
    expect(child.output()).not.toContain('done');
    await expectKilledBetweenWriteAndDelete(bullpen, dataDir, all);

    // The job runs again (BullMQ's stalled-job recovery keeps its id) and finishes.
    const ctx = makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: BATCH }, { jobId: 'archive-1', attempt: 2 });
    const result = await createSessionArchiveHandler(storesOf(bullpen))(ctx);
    // The recovery path ran: the batch in flight is counted as recovered, not archived anew.
    expect(result.recovered).toBe(BATCH);
    expect(result.archived).toBe(all.length - (KILL_AT - 1) * BATCH);
    expect(ctx.progressReports.at(-1)?.detail).toMatchObject({ recovered: BATCH });
    await expectArchivedExactlyOnce(bullpen, dataDir, all, remaining);
    await bullpen.close();
  }, 60_000);

  it('as a BullMQ job: the worker process is SIGKILLed there, a new worker takes the stalled job over, recovers and completes it', async () => {
    const { bullpen, dataDir, all, remaining } = await seeded('kill-worker');
    const { jobId } = await bullpen.dispatcher.dispatch('session-archive', { olderThanMs: 7 * DAY, batchSize: BATCH });
    const env = {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: bullpen.keys.root,
      BULLPEN_DATA_DIR: dataDir,
      STALLED_INTERVAL_MS: '1000',
      LOCK_DURATION_MS: '2000',
    };
    const first = spawnFixture('app/session-archive-worker.ts', { ...env, KILL_AT_BATCH: String(KILL_AT) });
    spawned.push(first);
    expect(await first.exited, first.output()).toBeNull();
    expect(first.output()).toContain(`killed after writing batch ${KILL_AT}, before deleting it`);
    const queue = bullpen.queues.get('session-archive');
    expect(await queue.getJobState(jobId)).toBe('active');
    await expectKilledBetweenWriteAndDelete(bullpen, dataDir, all);

    // A worker as `npm run worker` composes it, nothing replaced.
    const second = spawnFixture('app/session-archive-worker.ts', env);
    spawned.push(second);
    await second.ready;
    const deadline = Date.now() + 60_000;
    while ((await queue.getJobState(jobId)) !== 'completed') {
      if (Date.now() > deadline) throw new Error(`the job never completed (${await queue.getJobState(jobId)}):\n${second.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const job = await queue.getJob(jobId);
    const result = job!.returnvalue as SessionArchiveResult;
    expect(result.recovered).toBe(BATCH);
    expect(result.archived).toBe(all.length - (KILL_AT - 1) * BATCH);
    await expectArchivedExactlyOnce(bullpen, dataDir, all, remaining);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    await bullpen.close();
  }, 90_000);
});
