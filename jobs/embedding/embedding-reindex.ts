import type { z } from 'zod';
import type { embeddingReindexSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import type { StoredVector } from './vectors/vector-store';
import { embedAll } from '../shared/ports/embedder/embedder';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof embeddingReindexSchema>;

export interface ReindexResult {
  namespace: string;
  model: string;
  /** The model the namespace held before, when this job switched it. */
  previousModel?: string;
  scanned: number;
  reembedded: number;
}

/**
 * embedding-reindex: brings every vector of `namespace` to the current embedder's
 * model, re-embedding it from its stored text. When the model differs, the namespace
 * switches to it first (a new index generation), and until the job ends searches cover
 * the vectors already re-embedded. Vectors of the current model are left as they are.
 *
 * Resumable: the cursor (the last label done) is stored under the job id after every
 * batch, so a retry continues where the last attempt stopped; a batch redone after a
 * crash finds its vectors already of the new model and skips them.
 */
export function createEmbeddingReindexHandler(stores: AppStores): JobHandler<Payload, ReindexResult> {
  const { vectors, embedder } = stores;
  const store = vectors.store;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const { namespace, batchSize } = ctx.data;
    const run = await store.getRun(namespace, runId);
    if (run.result) return JSON.parse(run.result) as ReindexResult;

    const before = await store.stats(namespace);
    let previousModel = run.previousModel || undefined;
    if (before.model && before.model !== embedder.model) {
      previousModel = before.model;
      await store.putRun(namespace, runId, { previousModel });
      await store.newGeneration(namespace, { model: embedder.model });
    }

    let cursor = Number(run.cursor ?? 0);
    let scanned = Number(run.scanned ?? 0);
    let reembedded = Number(run.reembedded ?? 0);
    await ctx.progress(0, 'reindexing', { total: before.live });
    for (;;) {
      ctx.signal.throwIfAborted();
      const page = await store.idsByLabel(namespace, cursor, batchSize);
      if (page.length === 0) break;
      const stale = (
        await store.getMany(
          namespace,
          page.map((p) => p.id),
        )
      ).filter((v): v is StoredVector => v !== undefined && v.model !== embedder.model);
      const fresh = await embedAll(
        embedder,
        stale.map((v) => v.text),
        ctx.signal,
      );
      await store.upsertMany(
        namespace,
        stale.map((v, i) => ({ id: v.id, text: v.text, vector: fresh[i], model: embedder.model, tenant: v.tenant, metadata: v.metadata })),
      );
      cursor = page[page.length - 1].label;
      scanned += page.length;
      reembedded += stale.length;
      await store.putRun(namespace, runId, { cursor, scanned, reembedded });
      await ctx.progress(Math.min(99, (100 * scanned) / Math.max(1, before.live)), 'reindexing', { scanned, reembedded });
    }

    const result: ReindexResult = { namespace, model: embedder.model, previousModel, scanned, reembedded };
    await store.putRun(namespace, runId, { result: JSON.stringify(result) });
    await ctx.progress(100, 'complete', { scanned, reembedded });
    return result;
  };
}
