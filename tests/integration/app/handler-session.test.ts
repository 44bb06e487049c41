import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import { SessionArchiveStore } from '@/jobs/session/sessions/session-archive-store';
import { SessionStore } from '@/jobs/session/sessions/session-store';
import { createSessionArchiveHandler } from '@/jobs/session/session-archive';
import { createSessionCleanupHandler } from '@/jobs/session/session-cleanup';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { makeSessions } from '../../fixtures/app/sessions';

const DAY = 24 * 60 * 60 * 1000;
const acme = { orgId: 'acme' };
const globex = { orgId: 'globex', workspaceId: 'w1' };

let bullpen: Bullpen;
let sessions: SessionStore;
let dataDir: string;

const server = useTestRedis();
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-sessions-'));
  bullpen = makeBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  sessions = new SessionStore(bullpen.redis, bullpen.keys);
});
afterEach(async () => {
  await bullpen.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function ids(tenant: typeof acme | typeof globex): Promise<string[]> {
  const out: string[] = [];
  for await (const s of sessions.exportByTenant(tenant)) out.push(s.id as string);
  return out.sort();
}

async function archiveLines(): Promise<Array<Record<string, unknown>>> {
  const root = SessionArchiveStore.rootFor(dataDir);
  const day = new Date().toISOString().slice(0, 10);
  const lines: Array<Record<string, unknown>> = [];
  for (const org of ['acme', 'globex']) {
    const text = await readFile(path.join(root, org, `${day}.jsonl`), 'utf8').catch(() => '');
    for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
  }
  return lines;
}

describe('session-cleanup', () => {
  it('expires the sessions idle past maxAge, in batches, and keeps the others', async () => {
    const now = Date.now();
    for (const s of makeSessions({ tenant: acme, count: 25, idleMs: 2 * DAY, now, prefix: 'old' })) await sessions.save(s);
    for (const s of makeSessions({ tenant: globex, count: 5, idleMs: 2 * DAY, now, prefix: 'gold' })) await sessions.save(s);
    for (const s of makeSessions({ tenant: acme, count: 4, idleMs: 60_000, now, prefix: 'fresh' })) await sessions.save(s);
    // Idle for days, then used just now: not expired.
    await sessions.touch('old-3', now);

    const ctx = makeJobContext('session-cleanup', { maxAgeMs: DAY, batchSize: 10 });
    const result = await createSessionCleanupHandler(storesOf(bullpen))(ctx);

    expect(result).toMatchObject({ expired: 29, revived: 0 });
    expect(await ids(acme)).toEqual(['fresh-0', 'fresh-1', 'fresh-2', 'fresh-3', 'old-3']);
    expect(await ids(globex)).toEqual([]);
    expect(await sessions.get('old-4')).toBeUndefined();
    expect((await sessions.get('old-3'))?.lastActiveAt).toBe(now);
    const expiring = ctx.progressReports.filter((p) => p.phase === 'expiring');
    expect(expiring.length).toBeGreaterThanOrEqual(4); // the start and one per batch of 10
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const again = await createSessionCleanupHandler(storesOf(bullpen))(makeJobContext('session-cleanup', { maxAgeMs: DAY, batchSize: 10 }));
    expect(again.expired).toBe(0);
    expect(await ids(acme)).toHaveLength(5);
  });

  it('keeps a session used between its selection and its removal', async () => {
    const now = Date.now();
    for (const s of makeSessions({ tenant: acme, count: 3, idleMs: 2 * DAY, now, prefix: 's' })) await sessions.save(s);
    const cutoff = now - DAY;
    const batch = await sessions.idle(cutoff, 10);
    expect(batch).toHaveLength(3);
    await sessions.touch('s-1', now);
    expect(await sessions.expireIfIdle(batch, cutoff)).toBe(2);
    expect(await ids(acme)).toEqual(['s-1']);
  });

  it('refuses an invalid session with a message and stores nothing', async () => {
    await expect(
      sessions.save({ ...makeSessions({ tenant: acme, count: 1, idleMs: 0, now: 0, prefix: 'x' })[0], userId: '' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    expect(await sessions.countByTenant(acme)).toBe(0);
  });
});

describe('session-archive', () => {
  it('writes idle sessions to JSONL per organisation, then removes them; a second run adds nothing', async () => {
    const now = Date.now();
    const old = makeSessions({ tenant: acme, count: 12, idleMs: 10 * DAY, now, prefix: 'a' });
    for (const s of old) await sessions.save(s);
    for (const s of makeSessions({ tenant: globex, count: 3, idleMs: 10 * DAY, now, prefix: 'g' })) await sessions.save(s);
    for (const s of makeSessions({ tenant: acme, count: 2, idleMs: DAY, now, prefix: 'recent' })) await sessions.save(s);

    const ctx = makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 5 });
    const result = await createSessionArchiveHandler(storesOf(bullpen))(ctx);
    expect(result).toMatchObject({ archived: 15, recovered: 0 });

    const lines = await archiveLines();
    expect(lines.map((l) => l.id).sort()).toEqual([...old.map((s) => s.id), 'g-0', 'g-1', 'g-2'].sort());
    const a0 = lines.find((l) => l.id === 'a-0')!;
    expect(a0).toMatchObject({ ...old[0], archivedAt: expect.any(Number) });
    expect(lines.filter((l) => (l.tenant as { orgId: string }).orgId === 'globex')).toHaveLength(3);
    expect(await ids(acme)).toEqual(['recent-0', 'recent-1']);
    expect(await ids(globex)).toEqual([]);
    expect(ctx.progressReports.filter((p) => p.phase === 'archiving').map((p) => p.detail?.archived)).toEqual([0, 5, 10, 15]);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const again = await createSessionArchiveHandler(storesOf(bullpen))(
      makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 5 }),
    );
    expect(again.archived).toBe(0);
    expect(await archiveLines()).toHaveLength(15);
  });

  it('finishes a batch a dead run left half-written: what reached the disk once, the rest once, no torn line', async () => {
    const now = Date.now();
    const all = makeSessions({ tenant: acme, count: 5, idleMs: 10 * DAY, now, prefix: 's' });
    for (const s of all) await sessions.save(s);

    // The state a run leaves when killed during its append: in-flight record written,
    // two lines complete on disk, the third torn, nothing deleted yet.
    const day = new Date(now).toISOString().slice(0, 10);
    const file = path.join(SessionArchiveStore.rootFor(dataDir), 'acme', `${day}.jsonl`);
    await mkdir(path.dirname(file), { recursive: true });
    await appendFile(file, `${JSON.stringify({ id: 'earlier', tenant: acme })}\n`);
    const size = (await readFile(file)).length;
    const inFlightKey = bullpen.keys.tagged('sessions', 'sessions', 'archive', 'in-flight');
    await bullpen.redis.set(
      inFlightKey,
      JSON.stringify({ owner: 'dead', ids: ['s-0', 's-1', 's-2'], files: [{ path: `acme/${day}.jsonl`, size }] }),
    );
    const line = (i: number) => JSON.stringify({ ...all[i], archivedAt: now });
    await appendFile(file, `${line(0)}\n${line(1)}\n${line(2).slice(0, 40)}`);

    const result = await createSessionArchiveHandler(storesOf(bullpen))(
      makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 10 }),
    );
    expect(result).toMatchObject({ archived: 5, recovered: 2 });

    const text = await readFile(file, 'utf8');
    const parsed = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string });
    const counts = new Map<string, number>();
    for (const { id } of parsed) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ earlier: 1, 's-0': 1, 's-1': 1, 's-2': 1, 's-3': 1, 's-4': 1 });
    expect(await ids(acme)).toEqual([]);
    expect(await bullpen.redis.exists(inFlightKey)).toBe(0);
  });

  it('lets one archive run at a time: another job waits (retryable CONFLICT) and changes nothing', async () => {
    const now = Date.now();
    for (const s of makeSessions({ tenant: acme, count: 3, idleMs: 10 * DAY, now, prefix: 's' })) await sessions.save(s);
    await bullpen.redis.set(bullpen.keys.tagged('sessions', 'sessions', 'archive', 'lock'), 'session-archive:other-job', 'PX', 60_000);

    await expect(
      createSessionArchiveHandler(storesOf(bullpen))(makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 10 })),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await ids(acme)).toHaveLength(3);
    expect(await archiveLines()).toEqual([]);

    // The holder itself (a retry of that job) takes its lease back at once.
    const own = await createSessionArchiveHandler(storesOf(bullpen))(
      makeJobContext('session-archive', { olderThanMs: 7 * DAY, batchSize: 10 }, { jobId: 'other-job', attempt: 2 }),
    );
    expect(own.archived).toBe(3);
  });
});
