import { useTestRedis } from '../../helpers/use-test-redis';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { MEMORY_VECTOR_NAMESPACE, semanticMemoryId, type Memory } from '@/jobs/memory/memories/memory';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { jobType, storesOf } from '../../helpers/shipped-jobs';
import type { Tenant } from '@/lib/jobs/tenant';
import { readyClient } from '@/lib/redis/connection';
import { LexicalHashEmbedder } from '@/jobs/shared/ports/embedder/lexical-hash-embedder';
import { createMemoryConsolidationHandler } from '@/jobs/memory/memory-consolidation';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';

const acme: Tenant = { orgId: 'acme', workspaceId: 'w1' };
const globex: Tenant = { orgId: 'globex' };
const payload = (data: Record<string, unknown> = {}) => jobType('memory-consolidation').schema.parse(data);

const EPISODES: Array<[string, string, number]> = [
  ['d1', 'The user prefers dark mode in the editor.', 0.8],
  ['d2', 'User prefers dark mode in the editor.', 0.6],
  ['d3', 'The user prefers the dark mode in the editor.', 0.4],
  ['s1', 'Weekly standup moved to Tuesday at 10am.', 0.5],
  ['s2', 'The weekly standup moved to Tuesday at 10am.', 0.7],
  ['x1', 'Invoice 4411 was paid by bank transfer.', 0.9],
];

async function seed(store: MemoryStore): Promise<void> {
  let t = 1_000;
  for (const [id, content, importance] of EPISODES) {
    await store.create({ id, kind: 'episodic', content, importance, tenant: acme, userId: 'u1', createdAt: t++ });
  }
  // Another tenant's near-duplicates: never clustered with acme's.
  await store.create({
    id: 'g1',
    kind: 'episodic',
    content: 'The user prefers dark mode in the editor.',
    importance: 0.5,
    tenant: globex,
    createdAt: t++,
  });
  await store.create({
    id: 'g2',
    kind: 'episodic',
    content: 'User prefers dark mode in the editor.',
    importance: 0.5,
    tenant: globex,
    createdAt: t++,
  });
}

/** Every memory, without what legitimately differs between two runs (times, the job id). */
async function snapshot(store: MemoryStore): Promise<unknown[]> {
  const all: Memory[] = [];
  for await (const batch of store.batches({})) all.push(...batch);
  return all
    .map(({ createdAt: _c, updatedAt: _u, metadata: { consolidatedBy: _j, ...metadata }, ...m }) => ({ ...m, metadata }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe('memory-consolidation', () => {
  const server = useTestRedis();
  const open: Bullpen[] = [];
  let llm: Server | undefined;

  async function bullpen(env?: Record<string, string>) {
    const b = makeBullpen(server.redis, env ? { env } : {});
    open.push(b);
    await readyClient(b.redis);
    return b;
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
    await new Promise<void>((r) => (llm ? llm.close(() => r()) : r()));
    llm = undefined;
  });

  it('clusters similar memories into semantic ones, halves the sources and indexes the result', async () => {
    const b = await bullpen();
    const store = new MemoryStore(b.redis, b.keys);
    await seed(store);
    const ctx = makeJobContext('memory-consolidation', payload(), { tenant: acme });
    const result = await createMemoryConsolidationHandler(storesOf(b))(ctx);

    const darkId = semanticMemoryId(['d1', 'd2', 'd3']);
    const standupId = semanticMemoryId(['s1', 's2']);
    expect(result).toMatchObject({ scanned: 6, clusters: 2, sourcesConsolidated: 5, strategy: 'merge' });
    expect(result.semanticIds.sort()).toEqual([darkId, standupId].sort());

    const dark = (await store.get(darkId))!;
    expect(dark).toMatchObject({
      kind: 'semantic',
      tenant: acme,
      userId: 'u1',
      sourceIds: ['d1', 'd2', 'd3'],
      importance: 0.8,
      embeddingId: `${MEMORY_VECTOR_NAMESPACE}/${darkId}`,
      metadata: { synthesiser: 'extractive-v1', consolidatedBy: ctx.jobId },
    });
    expect(dark.content).toMatch(/dark mode/);
    expect((dark.content.match(/dark mode/g) ?? []).length).toBe(1);

    // merge: sources halved and marked; the unrelated memory untouched.
    expect(await store.get('d1')).toMatchObject({ importance: 0.4, consolidatedInto: darkId });
    expect(await store.get('s2')).toMatchObject({ importance: 0.35, consolidatedInto: standupId });
    expect(await store.get('x1')).toMatchObject({ importance: 0.9 });
    expect((await store.get('x1'))!.consolidatedInto).toBeUndefined();
    expect(await store.get('g1')).toMatchObject({ importance: 0.5 });
    expect((await store.get('g1'))!.consolidatedInto).toBeUndefined();

    // Every source got a vector on the way, and the semantic memory is searchable.
    const vectors = storesOf(b).vectors;
    expect((await store.get('x1'))!.embeddingId).toBe(`${MEMORY_VECTOR_NAMESPACE}/x1`);
    const [query] = await new LexicalHashEmbedder().embed([dark.content]);
    const hits = await vectors.search(MEMORY_VECTOR_NAMESPACE, query, 3, { tenant: acme });
    expect(hits.map((h) => h.id)).toContain(darkId);

    const phases = ctx.progressReports.map((p) => `${p.percent}:${p.phase}`);
    const milestones = phases.filter((p) => ['10:analyzing', '40:generating', '80:indexing', '100:complete'].includes(p));
    expect(milestones).toEqual(['10:analyzing', '40:generating', '80:indexing', '100:complete']);
    const percents = ctx.progressReports.map((p) => p.percent);
    expect(percents).toEqual([...percents].sort((x, y) => x - y));
  });

  it('leaves the same state when run twice, as a retry or as a DLQ replay', async () => {
    const once = await bullpen();
    const onceStore = new MemoryStore(once.redis, once.keys);
    await seed(onceStore);
    await createMemoryConsolidationHandler(storesOf(once))(makeJobContext('memory-consolidation', payload(), { tenant: acme }));

    const twice = await bullpen();
    const store = new MemoryStore(twice.redis, twice.keys);
    await seed(store);
    const handler = createMemoryConsolidationHandler(storesOf(twice));
    const ctx = makeJobContext('memory-consolidation', payload(), { tenant: acme });
    const first = await handler(ctx);
    // The same job again (a retry) and a new job over the same data (a replay).
    expect(await handler(makeJobContext('memory-consolidation', payload(), { tenant: acme, jobId: ctx.jobId, attempt: 2 }))).toEqual(first);
    const replay = await handler(makeJobContext('memory-consolidation', payload(), { tenant: acme }));
    expect(replay).toMatchObject({ clusters: 0, semanticIds: [] });

    expect(await snapshot(store)).toEqual(await snapshot(onceStore));
    expect(await store.count({}, 'semantic')).toBe(2);
  });

  it('resumes a job that died midway without a second semantic memory or a second halving', async () => {
    const once = await bullpen();
    const onceStore = new MemoryStore(once.redis, once.keys);
    await seed(onceStore);
    await createMemoryConsolidationHandler(storesOf(once))(makeJobContext('memory-consolidation', payload(), { tenant: acme }));

    const b = await bullpen();
    const store = new MemoryStore(b.redis, b.keys);
    await seed(store);
    const handler = createMemoryConsolidationHandler(storesOf(b));
    const abort = new AbortController();
    const dying = makeJobContext('memory-consolidation', payload(), { tenant: acme, signal: abort.signal });
    const report = dying.progress;
    dying.progress = async (percent, phase, detail) => {
      await report(percent, phase, detail);
      // The worker dies right after the first cluster was saved.
      if (phase === 'generating' && detail?.cluster === 1) abort.abort(new Error('worker killed'));
    };
    await expect(handler(dying)).rejects.toThrow();
    expect(await store.count({}, 'semantic')).toBe(1);

    const retry = makeJobContext('memory-consolidation', payload(), { tenant: acme, jobId: dying.jobId, attempt: 2 });
    const result = await handler(retry);
    expect(result.clusters).toBe(2);
    expect(await snapshot(store)).toEqual(await snapshot(onceStore));
  });

  it('keeps sources with strategy keep, honours minClusterSize and refuses a workspace without a tenant', async () => {
    const b = await bullpen();
    const store = new MemoryStore(b.redis, b.keys);
    await seed(store);
    const handler = createMemoryConsolidationHandler(storesOf(b));
    const result = await handler(
      makeJobContext('memory-consolidation', payload({ strategy: 'keep', minClusterSize: 3 }), { tenant: acme }),
    );
    expect(result.clusters).toBe(1);
    expect(await store.get('d1')).toMatchObject({ importance: 0.8, consolidatedInto: semanticMemoryId(['d1', 'd2', 'd3']) });
    expect((await store.get('s1'))!.consolidatedInto).toBeUndefined();

    await expect(handler(makeJobContext('memory-consolidation', payload({ workspaceId: 'w1' })))).rejects.toMatchObject({
      name: 'PermanentError',
    });
    await expect(handler(makeJobContext('memory-consolidation', payload({ workspaceId: 'w2' }), { tenant: acme }))).rejects.toThrow(
      /not the job's workspace/,
    );
  });

  it('writes the semantic memory with the chat model when LLM_URL is set', async () => {
    const prompts: string[] = [];
    llm = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        prompts.push(body.messages[1].content);
        const text = body.messages[1].content.includes('standup') ? 'Standup is on Tuesdays at 10am.' : 'The user prefers dark mode.';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: text } }] }));
      });
    });
    await new Promise<void>((r) => llm!.listen(0, '127.0.0.1', () => r()));
    const b = await bullpen({ LLM_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}` });
    const store = new MemoryStore(b.redis, b.keys);
    await seed(store);
    await createMemoryConsolidationHandler(storesOf(b))(makeJobContext('memory-consolidation', payload(), { tenant: acme }));
    expect(prompts).toHaveLength(2);
    expect(await store.get(semanticMemoryId(['d1', 'd2', 'd3']))).toMatchObject({
      content: 'The user prefers dark mode.',
      metadata: { synthesiser: 'chat:gpt-4o-mini' },
    });
  });
});
