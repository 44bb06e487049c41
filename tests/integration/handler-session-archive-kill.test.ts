import { useTestRedis } from '../helpers/use-test-redis';
import { storesOf } from '../helpers/source-jobs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readyClient } from '@/lib/redis/connection';
import { SessionArchive } from '@/jobs/session/sessions/session-archive';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import { createSessionArchiveHandler } from '@/jobs/session/session-archive';
import { makeBullpen } from '../helpers/bullpen';
import { makeJobContext } from '../helpers/job-context';
import { uniquePrefix } from '../helpers/redis';
import { spawnFixture } from '../helpers/worker-process';
import { makeSessions } from '../fixtures/sessions';

const DAY = 24 * 60 * 60 * 1000;
const server = useTestRedis();
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-archive-kill-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
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

it('a session-archive job SIGKILLed mid-run, then run again, archives every session exactly once', async () => {
  const prefix = uniquePrefix('kill');
  const bullpen = makeBullpen(server.redis, { prefix, env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  const sessions = new SessionStore(bullpen.redis, bullpen.keys);
  const now = Date.now();
  const all = [
    ...makeSessions({ tenant: { orgId: 'acme' }, count: 2000, idleMs: 10 * DAY, now, prefix: 'a' }),
    ...makeSessions({ tenant: { orgId: 'globex', workspaceId: 'w' }, count: 1000, idleMs: 10 * DAY, now, prefix: 'g' }),
  ];
  for (let i = 0; i < all.length; i += 100) await Promise.all(all.slice(i, i + 100).map((s) => sessions.save(s)));
  const remaining = async () => (await sessions.countByTenant({ orgId: 'acme' })) + (await sessions.countByTenant({ orgId: 'globex' }));

  const env = {
    REDIS_PORT: String(server.redis.port),
    BULLPEN_PREFIX: prefix,
    BULLPEN_DATA_DIR: dataDir,
    JOB_ID: 'archive-1',
    BATCH_SIZE: '10',
    PACE_MS: '0',
  };
  let kills = 0;
  // Kill up to four times, each after some progress of that run and a different extra delay.
  // Batches follow each other without pause, so a kill lands inside one: most often
  // between its write-ahead record and its deletion, the window the recovery is for.
  for (const [atLeast, delayMs] of [
    [300, 0],
    [300, 1],
    [300, 2],
    [300, 3],
  ] as const) {
    // Leave room for a kill mid-run even on a slow machine, where a kill lands later.
    if ((await remaining()) < 900) break;
    kills++;
    const child = spawnFixture('session-archive-child.ts', env);
    await child.ready;
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        const seen = [...child.output().matchAll(/archived (\d+)/g)].map((m) => Number(m[1]));
        if (seen.some((n) => n >= atLeast)) {
          clearInterval(timer);
          setTimeout(() => {
            child.child.kill('SIGKILL');
            resolve();
          }, delayMs);
        }
        if (child.output().includes('done')) {
          clearInterval(timer);
          reject(new Error('the child finished before it could be killed'));
        }
      }, 1);
    });
    expect(await child.exited).toBeNull();
    // Killed mid-run: some sessions archived, some not.
    const left = await remaining();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(all.length);
  }

  expect(kills).toBeGreaterThanOrEqual(3);

  // The job runs again (BullMQ's stalled-job recovery keeps its id) and finishes.
  const result = await createSessionArchiveHandler(storesOf(bullpen))(
    makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 10 }, { jobId: 'archive-1', attempt: 2 }),
  );
  expect(result.archived).toBeGreaterThan(0);

  const counts = await linesPerId(SessionArchive.rootFor(dataDir));
  expect(counts.size).toBe(all.length);
  const notOnce = [...counts].filter(([, n]) => n !== 1);
  expect(notOnce).toEqual([]);
  expect(new Set(counts.keys())).toEqual(new Set(all.map((s) => s.id)));
  expect(await remaining()).toBe(0);
  await bullpen.close();
});
