import { useTestRedis } from '../../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { MEMORY_VECTOR_NAMESPACE, embeddingRef, type Memory } from '@/jobs/memory/memories/memory';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { VectorStore } from '@/jobs/embedding/vectors/vector-store';
import { jobType, storesOf } from '../../helpers/shipped-jobs';
import type { Tenant } from '@/lib/jobs/tenant';
import { silentLogger } from '@/lib/logging/logger';
import { LexicalHashEmbedder } from '@/jobs/shared/ports/embedder/lexical-hash-embedder';
import { readyClient } from '@/lib/redis/connection';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { createHandlers } from '../../helpers/shipped-jobs';
import { createMemoryCleanupHandler } from '@/jobs/memory/memory-cleanup';
import { createMemoryImportanceDecayHandler } from '@/jobs/memory/memory-importance-decay';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';

const acme: Tenant = { orgId: 'acme' };
const globex: Tenant = { orgId: 'globex' };
const DAY = 24 * 60 * 60 * 1_000;

/** 120 acme memories with importance cycling 0.8, 0.15, 0.05, and 10 of globex at 0.8. */
async function seedForDecay(store: MemoryStore): Promise<void> {
  const levels = [0.8, 0.15, 0.05];
  for (let i = 0; i < 120; i++) {
    await store.create({
      id: `a${String(i).padStart(3, '0')}`,
      kind: 'episodic',
      content: `a ${i}`,
      importance: levels[i % 3],
      tenant: acme,
      createdAt: 1_000 + i,
    });
  }
  for (let i = 0; i < 10; i++) await store.create({ id: `g${i}`, kind: 'episodic', content: `g ${i}`, importance: 0.8, tenant: globex });
}

async function importances(store: MemoryStore): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const batch of store.batches({})) for (const m of batch) out[m.id] = m.importance;
  return out;
}

class ListSink implements DeadLetterSink {
  readonly entries: DeadLetterInput[] = [];
  async record(input: DeadLetterInput) {
    this.entries.push(input);
    return { id: input.jobId, created: true };
  }
}

describe('memory-importance-decay', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let store: MemoryStore;
  let pool: WorkerPool | undefined;
  const payload = (d: Record<string, unknown>) => jobType('memory-importance-decay').schema.parse(d);

  afterEach(async () => {
    await pool?.close(5_000);
    pool = undefined;
    await bullpen.close();
  });

  async function setup() {
    bullpen = makeBullpen(server.redis);
    await readyClient(bullpen.redis);
    store = new MemoryStore(bullpen.redis, bullpen.keys);
    await seedForDecay(store);
  }

  it('multiplies importance by the factor down to the floor, in the tenant only, with progress per batch', async () => {
    await setup();
    const ctx = makeJobContext('memory-importance-decay', payload({ decayFactor: 0.5, floor: 0.1, batchSize: 25 }), { tenant: acme });
    const result = await createMemoryImportanceDecayHandler(storesOf(bullpen))(ctx);
    expect(result).toEqual({ scanned: 120, lowered: 80, decayFactor: 0.5, floor: 0.1 });
    const after = await importances(store);
    expect(after.a000).toBe(0.4);
    expect(after.a001).toBe(0.1);
    expect(after.a002).toBe(0.05);
    expect(after.g0).toBe(0.8);
    const decaying = ctx.progressReports.filter((p) => p.phase === 'decaying').map((p) => p.percent);
    expect(decaying.length).toBeGreaterThanOrEqual(5);
    expect(decaying).toEqual([...decaying].sort((x, y) => x - y));
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });
  });

  it('decays once when the job runs twice, and a retry after a crash continues where it stopped', async () => {
    await setup();
    const handler = createMemoryImportanceDecayHandler(storesOf(bullpen));
    const data = payload({ decayFactor: 0.5, floor: 0.01, batchSize: 20 });
    const abort = new AbortController();
    const dying = makeJobContext('memory-importance-decay', data, { signal: abort.signal });
    const report = dying.progress;
    dying.progress = async (percent, phase, detail) => {
      await report(percent, phase, detail);
      if ((detail?.scanned as number) >= 60) abort.abort(new Error('worker killed'));
    };
    await expect(handler(dying)).rejects.toThrow();
    const midway = await importances(store);
    expect(Object.values(midway).filter((v) => v === 0.4)).toHaveLength(20);

    await handler(makeJobContext('memory-importance-decay', data, { jobId: dying.jobId, attempt: 2 }));
    await handler(makeJobContext('memory-importance-decay', data, { jobId: dying.jobId, attempt: 3 }));
    const after = await importances(store);
    expect(after.a000).toBe(0.4);
    expect(after.a001).toBe(0.075);
    expect(after.a002).toBe(0.025);
    expect(after.a119).toBe(0.025);
    expect(after.g9).toBe(0.4);
  });

  it('continues the original run when a job dispatched with an idempotency key is replayed from the DLQ', async () => {
    await setup();
    const handler = createMemoryImportanceDecayHandler(storesOf(bullpen));
    const data = payload({ decayFactor: 0.5, floor: 0.01, batchSize: 50 });
    const idempotencyKey = 'memory:ops:all:decay:2024-06-01T00';
    const abort = new AbortController();
    const failed = makeJobContext('memory-importance-decay', data, { idempotencyKey, signal: abort.signal });
    const report = failed.progress;
    failed.progress = async (percent, phase, detail) => {
      await report(percent, phase, detail);
      if ((detail?.scanned as number) >= 50) abort.abort(new Error('attempts exhausted'));
    };
    await expect(handler(failed)).rejects.toThrow();
    // The replay is a new job (a new id) carrying the original envelope and its key.
    const replay = await handler(makeJobContext('memory-importance-decay', data, { idempotencyKey }));
    expect(replay).toMatchObject({ scanned: 130 });
    const after = await importances(store);
    expect(after.a000).toBe(0.4);
    expect(after.a099).toBe(0.4);
    expect(after.g0).toBe(0.4);
  });

  it('runs through the worker pool as a dispatched job', async () => {
    await setup();
    const sink = new ListSink();
    pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: createHandlers(bullpen),
      types: ['memory-importance-decay'],
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
    });
    await pool.start();
    const { jobId } = await bullpen.dispatcher.dispatch('memory-importance-decay', { decayFactor: 0.5, floor: 0.1 }, { tenant: globex });
    const queue = bullpen.queues.get('memory-importance-decay');
    const deadline = Date.now() + 20_000;
    while ((await queue.getJobState(jobId)) !== 'completed') {
      if (Date.now() > deadline) throw new Error(`job is ${await queue.getJobState(jobId)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const job = (await queue.getJob(jobId))!;
    expect(job.returnvalue).toMatchObject({ scanned: 10, lowered: 10 });
    expect(job.progress).toMatchObject({ percent: 100, phase: 'complete' });
    const after = await importances(store);
    expect(after.g3).toBe(0.4);
    expect(after.a000).toBe(0.8);
    expect(sink.entries).toHaveLength(0);
  });
});

describe('memory-cleanup', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  const payload = (d: Record<string, unknown>) => jobType('memory-cleanup').schema.parse(d);

  afterEach(async () => {
    await bullpen.close();
  });

  /** acme: 30 memories, every 3rd unimportant, every 5th 40 days old; each with a vector. globex: 5 unimportant. */
  async function setup(): Promise<{ store: MemoryStore; vectors: VectorStore }> {
    bullpen = makeBullpen(server.redis);
    await readyClient(bullpen.redis);
    const store = new MemoryStore(bullpen.redis, bullpen.keys);
    const vectors = new VectorStore(bullpen.redis, bullpen.keys);
    const embedder = new LexicalHashEmbedder();
    const now = Date.now();
    const all: Memory[] = [];
    for (let i = 0; i < 30; i++) {
      all.push(
        await store.create({
          id: `a${String(i).padStart(2, '0')}`,
          kind: 'episodic',
          content: `acme memory ${i}`,
          importance: i % 3 === 0 ? 0.05 : 0.6,
          tenant: acme,
          createdAt: i % 5 === 0 ? now - 40 * DAY + i : now - DAY + i,
        }),
      );
    }
    for (let i = 0; i < 5; i++)
      all.push(await store.create({ id: `g${i}`, kind: 'episodic', content: `globex ${i}`, importance: 0.05, tenant: globex }));
    for (const m of all) {
      const [vector] = await embedder.embed([m.content]);
      await vectors.upsert(MEMORY_VECTOR_NAMESPACE, { id: m.id, text: m.content, vector, model: embedder.model, tenant: m.tenant });
      await store.linkEmbedding(m.id, embeddingRef(MEMORY_VECTOR_NAMESPACE, m.id));
    }
    return { store, vectors };
  }

  const doomed = (i: number) => i % 3 === 0 || i % 5 === 0;

  it('drops memories below the importance or past the age, with their vectors, in the tenant only', async () => {
    const { store, vectors } = await setup();
    const ctx = makeJobContext('memory-cleanup', payload({ importanceBelow: 0.1, olderThanDays: 30, batchSize: 7 }), { tenant: acme });
    const result = await createMemoryCleanupHandler(storesOf(bullpen))(ctx);
    const expected = Array.from({ length: 30 }, (_, i) => i).filter(doomed).length;
    expect(result).toMatchObject({ scanned: 30, deleted: expected, vectorsDeleted: expected, importanceBelow: 0.1 });
    for (let i = 0; i < 30; i++) {
      const id = `a${String(i).padStart(2, '0')}`;
      expect((await store.get(id)) !== undefined).toBe(!doomed(i));
      expect((await vectors.get(MEMORY_VECTOR_NAMESPACE, id)) !== undefined).toBe(!doomed(i));
    }
    expect(await store.count(globex)).toBe(5);
    expect((await vectors.stats(MEMORY_VECTOR_NAMESPACE)).live).toBe(35 - expected);
    expect(ctx.progressReports.filter((p) => p.phase === 'cleaning').length).toBeGreaterThanOrEqual(5);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });
  });

  it('with only an age rule stops at the first young memory, and a second run changes nothing', async () => {
    const { store, vectors } = await setup();
    const handler = createMemoryCleanupHandler(storesOf(bullpen));
    const ctx = makeJobContext('memory-cleanup', payload({ olderThanDays: 30, batchSize: 3 }), { tenant: acme });
    const first = await handler(ctx);
    expect(first.deleted).toBe(6);
    // Oldest first: the 6 old memories and one page past them, not all 30.
    expect(first.scanned).toBeLessThan(30);
    const state = { count: await store.count(), live: (await vectors.stats(MEMORY_VECTOR_NAMESPACE)).live };
    expect(
      await handler(
        makeJobContext('memory-cleanup', payload({ olderThanDays: 30, batchSize: 3 }), { tenant: acme, jobId: ctx.jobId, attempt: 2 }),
      ),
    ).toEqual(first);
    const replay = await handler(makeJobContext('memory-cleanup', payload({ olderThanDays: 30, batchSize: 3 }), { tenant: acme }));
    expect(replay.deleted).toBe(0);
    expect({ count: await store.count(), live: (await vectors.stats(MEMORY_VECTOR_NAMESPACE)).live }).toEqual(state);
  });

  it('is refused at dispatch without a rule', () => {
    expect(jobType('memory-cleanup').schema.safeParse({}).success).toBe(false);
  });
});
