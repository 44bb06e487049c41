import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readSearchStep } from '@/dashboard/queues/payload-search';
import { parseSearchStep, SEARCH_STEP, SEARCH_WINDOW, type SearchStepParams } from '@/dashboard/client/payload-search-params';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

const T0 = 1_700_000_000_000;

/** `n` completed jobs (id i+1 finished at T0 + i): payload `{ i, user: { id: i % 7 }, tags: ['t' + (i % 3)], note }`. */
async function seed(b: Bullpen, n: number) {
  const queue = b.queues.get('tidy');
  await queue.waitUntilReady();
  for (let start = 0; start < n; start += 5_000) {
    const pipe = b.redis.pipeline();
    for (let i = start; i < Math.min(n, start + 5_000); i++) {
      const id = String(i + 1);
      const payload = { i, user: { id: i % 7, vip: i % 100 === 0 }, tags: [`t${i % 3}`], note: i % 1000 === 5 ? 'needle "x"' : 'hay' };
      pipe.hset(queue.toKey(id), {
        name: i % 2 ? 'odd' : 'tidy',
        data: JSON.stringify({ payload, tenant: { orgId: i % 4 ? 'org-a' : 'org-b' }, requestId: `r${i}`, dispatchedAt: T0 }),
        opts: '{}',
        timestamp: String(T0 + i),
        finishedOn: String(T0 + i),
        returnvalue: 'null',
      });
      pipe.zadd(queue.toKey('completed'), T0 + i, id);
    }
    await pipe.exec();
  }
}

function step(query: Record<string, string>): SearchStepParams {
  const parsed = parseSearchStep(new URLSearchParams({ state: 'completed', ...query }));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.params;
}

/** Runs steps until done, as the page does: every step's progress and all matches. */
async function search(query: Record<string, string>) {
  const progress: number[] = [];
  const ids: string[] = [];
  let from = 0;
  for (;;) {
    const s = await readSearchStep(bullpen, 'tidy', step({ ...query, from: String(from) }));
    progress.push(s.scanned);
    ids.push(...s.jobs.map((j) => j.id));
    if (s.done) return { progress, ids, last: s };
    from = s.scanned;
  }
}

describe('payload search', () => {
  it('scans the newest 10,000 jobs of a state in steps of 1,000, finding a substring of the data', async () => {
    bullpen = testBullpen(server.redis);
    await seed(bullpen, 12_000);
    const { progress, ids, last } = await search({ q: 'needle "x"'.replace('"x"', '\\"x\\"') });
    expect(progress).toEqual(Array.from({ length: SEARCH_WINDOW / SEARCH_STEP }, (_, k) => (k + 1) * SEARCH_STEP));
    expect(last).toMatchObject({ window: SEARCH_WINDOW, capped: true, done: true });
    // i % 1000 === 5 among the newest 10,000 (i from 2,000 to 11,999), newest first.
    expect(ids).toEqual(['11006', '10006', '9006', '8006', '7006', '6006', '5006', '4006', '3006', '2006']);
  });

  it('matches a path=value on the decoded data (nested keys, array indexes, numbers, booleans), with the page filters', async () => {
    bullpen = testBullpen(server.redis);
    await seed(bullpen, 300);
    const byUser = await search({ match: 'payload.user.id=3' });
    expect(byUser.last).toMatchObject({ window: 300, capped: false, scanned: 300 });
    expect(byUser.ids.map(Number)).toEqual(
      Array.from({ length: 300 }, (_, i) => i)
        .filter((i) => i % 7 === 3)
        .reverse()
        .map((i) => i + 1),
    );

    const vip = await search({ match: 'payload.user.vip=true' });
    expect(vip.ids).toEqual(['201', '101', '1']);
    const tag = await search({ match: 'payload.tags.0=t2', name: 'odd', tenant: 'org-a' });
    expect(tag.ids.length).toBeGreaterThan(0);
    expect(tag.ids.every((id) => (Number(id) - 1) % 3 === 2 && (Number(id) - 1) % 2 === 1 && (Number(id) - 1) % 4 !== 0)).toBe(true);
    const both = await search({ q: '"vip":true', match: 'payload.i=100' });
    expect(both.ids).toEqual(['101']);
    expect((await search({ match: 'payload.nothing.here=1' })).ids).toEqual([]);
  });

  it('caps the matches a step returns and refuses bad searches with the rule', async () => {
    bullpen = testBullpen(server.redis);
    await seed(bullpen, 200);
    const s = await readSearchStep(bullpen, 'tidy', step({ q: 'hay', from: '0' }));
    expect(s.jobs).toHaveLength(50);
    expect(s.more).toBe(true);
    expect(parseSearchStep(new URLSearchParams({ state: 'completed' }))).toMatchObject({ ok: false });
    expect(parseSearchStep(new URLSearchParams({ state: 'completed', match: 'a..b=1' }))).toMatchObject({ ok: false });
    expect(parseSearchStep(new URLSearchParams({ state: 'completed', q: 'x', from: '20000' }))).toMatchObject({ ok: false });
    await expect(readSearchStep(bullpen, 'nope', step({ q: 'x' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
