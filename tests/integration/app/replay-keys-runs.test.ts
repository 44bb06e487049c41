import { useTestRedis } from '../../helpers/use-test-redis';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import type { Tenant } from '@/lib/jobs/tenant';
import { readyClient } from '@/lib/redis/connection';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { createHandlers } from '../../helpers/shipped-jobs';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';

/*
 * Edit-and-replay of a type that keeps a run's progress under its idempotency key
 * (jobRunId: the memory, embedding and index types): the edit is a new run, never the
 * plan of the payload it replaced (docs/dead-letters.md, "Replay keys").
 */
const TYPE = 'memory-consolidation';
const acme: Tenant = { orgId: 'acme', workspaceId: 'w1' };
const EPISODES: Array<[string, string]> = [
  ['d1', 'The user prefers dark mode in the editor.'],
  ['d2', 'User prefers dark mode in the editor.'],
  ['s1', 'Weekly standup moved to Tuesday at 10am.'],
  ['s2', 'The weekly standup moved to Tuesday at 10am.'],
];

describe('edit-and-replay of memory-consolidation dispatched with an idempotency key', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;
  let llm: Server;

  afterEach(async () => {
    await pool?.close(5_000);
    await bullpen.close();
    await new Promise<void>((r) => llm.close(() => r()));
  });

  it('plans again with the edited payload, and a replay of the edit does not run it twice', async () => {
    // The chat model refuses the first run's synthesis, after the run stored its plan.
    let refuse = true;
    const prompts: string[] = [];
    llm = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (refuse) return void res.writeHead(400).end('{}');
        prompts.push(JSON.parse(raw).messages[1].content);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'merged' } }] }));
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', () => r()));
    bullpen = makeBullpen(server.redis, { env: { LLM_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}` } });
    await readyClient(bullpen.redis);
    const store = new MemoryStore(bullpen.redis, bullpen.keys);
    let t = 1_000;
    for (const [id, content] of EPISODES)
      await store.create({ id, kind: 'episodic', content, importance: 0.5, tenant: acme, userId: 'u1', createdAt: t++ });
    pool = poolOf(bullpen, { [TYPE]: createHandlers(bullpen)[TYPE] });
    await pool!.start();

    const key = 'memory:u1:w1:consolidate:v1';
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, { workspaceId: 'w1' }, { tenant: acme, idempotencyKey: key, attempts: 1 });
    const queue = bullpen.queues.get(TYPE);
    await waitUntil(async () => (await queue.getJobState(jobId)) === 'failed');
    const letter = await waitFor(async () => {
      const e = await bullpen.dlq.getByJob(TYPE, jobId);
      return e?.status === 'pending' ? e : undefined;
    });

    // The edit: only clusters of 3 or more, which these memories do not make.
    refuse = false;
    const replayed = await bullpen.dlq.replay(letter.id, {
      by: 'op',
      payload: { ...(letter.payload as object), minClusterSize: 3 },
      expectedReplays: 0,
    });
    const replayJob = replayed.replays[0].newJobId;
    await waitUntil(async () => (await queue.getJobState(replayJob)) === 'completed');
    const result = (await queue.getJob(replayJob))!.returnvalue as { clusters: number; semanticIds: string[] };
    // Planned with the edit: no cluster, nothing synthesised. The stale plan held two clusters of two.
    expect(result).toMatchObject({ clusters: 0, semanticIds: [] });
    expect(prompts).toHaveLength(0);

    // A replay of the edit keeps its key: the run's stored result, not a second run.
    const again = await bullpen.dlq.replay(letter.id, { by: 'op', expectedReplays: 1 });
    const againJob = again.replays[1].newJobId;
    await waitUntil(async () => (await queue.getJobState(againJob)) === 'completed');
    expect((await queue.getJob(againJob))!.returnvalue).toEqual(result);
    expect((await queue.getJob(againJob))!.data.idempotencyKey).toBe(`${key}:${replayJob}`);
  });
});

async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not there within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  await waitFor(async () => ((await check()) ? true : undefined), timeoutMs);
}
