import { useTestRedis } from '../../helpers/use-test-redis';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { MemoryStore } from '@/jobs/memory/memories/memory-store';
import { EmbeddingFailureLog } from '@/jobs/embedding/vectors/embedding-failure-log';
import { VectorStore } from '@/jobs/embedding/vectors/vector-store';
import { jobType, storesOf } from '../../helpers/shipped-jobs';
import type { Tenant } from '@/lib/jobs/tenant';
import { LexicalHashEmbedder } from '@/jobs/shared/ports/embedder/lexical-hash-embedder';
import { readyClient } from '@/lib/redis/connection';
import { CancelledError } from '@/lib/errors/cancelled-error';
import { createEmbeddingBatchHandler } from '@/jobs/embedding/embedding-batch';
import { createEmbeddingReindexHandler } from '@/jobs/embedding/embedding-reindex';
import { makeBullpen } from '../../helpers/make-bullpen';
import { makeJobContext } from '../../helpers/job-context';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { silentLogger } from '@/lib/logging/logger';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';

const acme: Tenant = { orgId: 'acme' };
const items = (n: number, prefix = 'i') =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text: `note number ${i} about ${prefix}` }));
const batchPayload = (d: Record<string, unknown>) => jobType('embedding-batch').schema.parse(d);
const reindexPayload = (d: Record<string, unknown>) => jobType('embedding-reindex').schema.parse(d);

/**
 * A loopback OpenAI-compatible embeddings server: 4-d vectors from the text, a 400 for
 * any batch holding a text that `poison` matches.
 */
class FakeEmbeddings {
  server!: Server;
  calls: string[][] = [];
  poison: RegExp | undefined;
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const { input } = JSON.parse(raw) as { input: string[] };
        this.calls.push(input);
        if (this.poison && input.some((t) => this.poison!.test(t))) {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"rejected"}');
          return;
        }
        const data = input.map((t, index) => ({ index, embedding: [t.length, 1, t.charCodeAt(0), 2] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('embedding-batch and embedding-reindex', () => {
  const server = useTestRedis();
  let fake: FakeEmbeddings | undefined;
  const open: Bullpen[] = [];

  async function bullpen(env?: Record<string, string>) {
    const b = makeBullpen(server.redis, env ? { env } : {});
    open.push(b);
    await readyClient(b.redis);
    return b;
  }
  async function remote() {
    fake = new FakeEmbeddings();
    return bullpen({ EMBEDDINGS_URL: await fake.start(), EMBEDDINGS_MODEL: 'fake-4d' });
  }

  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
    await fake?.stop();
    fake = undefined;
  });

  it('embeds in batches of 32 with progress, stores vectors with the tenant and links memories', async () => {
    const b = await bullpen();
    const memories = new MemoryStore(b.redis, b.keys);
    await memories.create({ id: 'i5', kind: 'episodic', content: 'note number 5 about i', importance: 0.5, tenant: acme });
    await memories.create({ id: 'i6', kind: 'episodic', content: 'someone else’s', importance: 0.5, tenant: { orgId: 'globex' } });
    const ctx = makeJobContext('embedding-batch', batchPayload({ namespace: 'notes', items: items(70) }), { tenant: acme });
    const result = await createEmbeddingBatchHandler(storesOf(b))(ctx);

    expect(result).toMatchObject({
      namespace: 'notes',
      model: 'lexical-hash-v1',
      items: 70,
      embedded: 69,
      unchanged: 0,
      linked: 1,
      refused: ['i6'],
      failedBatches: [],
    });
    const batches = ctx.progressReports.filter((p) => p.phase === 'embedding' && p.detail?.batch);
    expect(batches.map((p) => p.detail?.batch)).toEqual([1, 2, 3]);
    expect(ctx.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const store = new VectorStore(b.redis, b.keys);
    expect(await store.get('notes', 'i0')).toMatchObject({ text: 'note number 0 about i', tenant: acme, model: 'lexical-hash-v1' });
    expect(await store.get('notes', 'i6')).toBeUndefined();
    expect((await memories.get('i5'))!.embeddingId).toBe('notes/i5');
    expect((await memories.get('i6'))!.embeddingId).toBeUndefined();
    const [query] = await new LexicalHashEmbedder().embed(['note number 42 about i']);
    expect((await storesOf(b).vectors.search('notes', query, 1))[0].id).toBe('i42');
  });

  it('stops between batches once its signal is aborted, even when a batch has nothing to embed', async () => {
    const b = await bullpen();
    const handler = createEmbeddingBatchHandler(storesOf(b));
    const data = batchPayload({ namespace: 'notes', items: items(96) });
    await handler(makeJobContext('embedding-batch', data, { tenant: acme }));
    // Run again: every text unchanged, so no batch calls the embedder; cancelled after the first.
    const controller = new AbortController();
    const ctx = makeJobContext('embedding-batch', data, { tenant: acme, signal: controller.signal });
    const report = ctx.progress;
    ctx.progress = async (percent, phase, detail) => {
      await report(percent, phase, detail);
      if (detail?.batch === 1) controller.abort(new CancelledError('alice'));
    };
    await expect(handler(ctx)).rejects.toBeInstanceOf(CancelledError);
    expect(ctx.progressReports.filter((p) => p.detail?.batch).map((p) => p.detail?.batch)).toEqual([1]);
  });

  it('changes nothing when run twice', async () => {
    const b = await bullpen();
    const handler = createEmbeddingBatchHandler(storesOf(b));
    const data = batchPayload({ namespace: 'notes', items: items(40) });
    const first = makeJobContext('embedding-batch', data, { tenant: acme });
    await handler(first);
    const store = new VectorStore(b.redis, b.keys);
    const before = await store.stats('notes');
    const again = await handler(makeJobContext('embedding-batch', data, { tenant: acme, jobId: first.jobId, attempt: 2 }));
    expect(again).toMatchObject({ embedded: 0, unchanged: 40 });
    expect(await store.stats('notes')).toEqual(before);
  });

  it('records a failed batch, goes on with the next, and a successful retry clears the record', async () => {
    const b = await remote();
    fake!.poison = /POISON/;
    const list = items(70);
    list[40].text = 'POISON pill';
    const handler = createEmbeddingBatchHandler(storesOf(b));
    const data = batchPayload({ namespace: 'notes', items: list });
    const ctx = makeJobContext('embedding-batch', data, { tenant: acme });
    const result = await handler(ctx);

    expect(result.failedBatches).toEqual([
      { batch: 1, ids: list.slice(32, 64).map((i) => i.id), error: expect.stringMatching(/HTTP 400/), errorClass: 'client' },
    ]);
    expect(result.embedded).toBe(38);
    expect(fake!.calls.map((c) => c.length)).toEqual([32, 32, 6]);
    const store = new VectorStore(b.redis, b.keys);
    expect(await store.get('notes', 'i33')).toBeUndefined();
    expect(await store.get('notes', 'i65')).toMatchObject({ model: 'fake-4d' });
    const failures = new EmbeddingFailureLog(b.redis, b.keys);
    expect(await failures.list('notes')).toEqual([expect.objectContaining({ jobId: ctx.jobId, batch: 1, errorClass: 'client' })]);

    fake!.poison = undefined;
    const retried = await handler(makeJobContext('embedding-batch', data, { tenant: acme, jobId: ctx.jobId, attempt: 2 }));
    expect(retried).toMatchObject({ embedded: 32, unchanged: 38, failedBatches: [] });
    // Only the failed batch went to the embedder again.
    expect(fake!.calls.slice(3).map((c) => c.length)).toEqual([32]);
    expect(await failures.list('notes')).toEqual([]);
    expect((await store.stats('notes')).live).toBe(70);
  });

  it('run as a real job with a failed batch, it completes and the dashboard says part of its work failed', async () => {
    const b = await remote();
    fake!.poison = /POISON/;
    const list = items(40);
    list[35].text = 'POISON pill';
    const pool = new WorkerPool({
      connection: b.workerConnection(),
      keys: b.keys,
      jobs: b.jobs,
      handlers: { 'embedding-batch': createEmbeddingBatchHandler(storesOf(b)) },
      sink: b.dlq,
      alerter: b.alerter,
      logger: silentLogger,
    });
    await pool.start();
    try {
      const { jobId } = await b.dispatcher.dispatch('embedding-batch', { namespace: 'notes', items: list }, { tenant: acme });
      await expect.poll(() => b.queues.get('embedding-batch').getJobState(jobId), { timeout: 15_000 }).toBe('completed');

      const page = await readJobPage(b, 'embedding-batch', jobId);
      expect(page!.job.outcome).toEqual({ text: '32 of 40 items embedded, 1 batch failed (8 items)', partial: true });
      const list2 = await readQueuePage(b, 'embedding-batch', parseQueueFilters({ state: 'completed' }));
      expect(list2.jobs.find((j) => j.id === jobId)?.outcome).toMatchObject({ partial: true });
    } finally {
      await pool.close(5_000);
    }
  });

  it('fails the job when every batch fails, so the runtime retries or dead-letters it', async () => {
    const b = await remote();
    fake!.poison = /./;
    const handler = createEmbeddingBatchHandler(storesOf(b));
    await expect(
      handler(makeJobContext('embedding-batch', batchPayload({ namespace: 'notes', items: items(3) }), { tenant: acme })),
    ).rejects.toMatchObject({ status: 400 });
    expect(
      jobType('embedding-batch').schema.safeParse({
        namespace: 'n',
        items: [
          { id: 'a', text: 'x' },
          { id: 'a', text: 'y' },
        ],
      }).success,
    ).toBe(false);
  });

  it('reindexes a namespace to the current model, resumably, and a second run does nothing', async () => {
    const b = await remote();
    // Vectors of an older local model, 64-d.
    const old = new LexicalHashEmbedder({ dimensions: 64 });
    const store = new VectorStore(b.redis, b.keys);
    const list = items(100, 'r');
    const vectors = await old.embed(list.map((i) => i.text));
    await store.upsertMany(
      'notes',
      list.map((item, i) => ({ ...item, vector: vectors[i], model: old.model, tenant: acme })),
    );

    fake!.poison = /number 70 /;
    const handler = createEmbeddingReindexHandler(storesOf(b));
    const data = reindexPayload({ namespace: 'notes', batchSize: 25 });
    const dying = makeJobContext('embedding-reindex', data);
    await expect(handler(dying)).rejects.toMatchObject({ status: 400 });
    // Batches 1-2 done (and their cursor stored), batch 3 refused.
    expect(await store.getRun('notes', dying.jobId)).toMatchObject({ cursor: '50', reembedded: '50', previousModel: old.model });
    expect((await store.stats('notes')).model).toBe('fake-4d');

    fake!.poison = undefined;
    fake!.calls = [];
    const retry = makeJobContext('embedding-reindex', data, { jobId: dying.jobId, attempt: 2 });
    const result = await handler(retry);
    expect(result).toEqual({ namespace: 'notes', model: 'fake-4d', previousModel: old.model, scanned: 100, reembedded: 100 });
    // The retry started at the cursor: only the last 50 texts were sent.
    expect(fake!.calls.flat()).toEqual(list.slice(50).map((i) => i.text));
    expect(retry.progressReports.at(-1)).toMatchObject({ percent: 100, phase: 'complete' });

    const all = await store.getMany(
      'notes',
      list.map((i) => i.id),
    );
    expect(all.every((v) => v?.model === 'fake-4d' && v.vector.length === 4 && v.tenant?.orgId === 'acme')).toBe(true);
    const stats = await store.stats('notes');
    expect(stats).toMatchObject({ live: 100, dimensions: 4 });
    const [hit] = await storesOf(b).vectors.search('notes', all[7]!.vector, 1);
    expect(hit.similarity).toBeCloseTo(1, 4);

    fake!.calls = [];
    const again = await handler(makeJobContext('embedding-reindex', data));
    expect(again).toMatchObject({ scanned: 100, reembedded: 0 });
    expect(again.previousModel).toBeUndefined();
    expect(fake!.calls).toEqual([]);
    expect(await store.stats('notes')).toEqual(stats);
  });
});
