import type { z } from 'zod';
import type { embeddingBatchSchema } from './schemas';
import { classifyError } from '@/lib/errors/classify';
import type { JobHandler } from '@/lib/runtime/handler';
import { embeddingRef, type Memory } from '../memory/memories/memory';
import { hashText, type VectorInput } from './vectors/vector-store';
import { chunk, embedAll } from '../shared/ports/embedder/embedder';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof embeddingBatchSchema>;

export interface FailedBatch {
  batch: number;
  ids: string[];
  error: string;
  errorClass: string;
}

export interface EmbeddingBatchResult {
  namespace: string;
  model: string;
  items: number;
  /** Vectors written (new or changed text). */
  embedded: number;
  /** Items whose vector already held the same text and model: nothing to do. */
  unchanged: number;
  /** Memories that now point at their vector. */
  linked: number;
  /** Items naming another tenant's memory: not embedded. */
  refused: string[];
  failedBatches: FailedBatch[];
}

/**
 * embedding-batch: embeds `items` in batches of `batchSize` (32), stores each vector
 * under its id in `namespace` with the job's tenant, and when a memory has that id,
 * points the memory at it. A batch that fails is recorded (in the result and in the
 * namespace's failure log) and the next batch goes on; only when every batch fails
 * does the job fail, so the runtime retries it or dead-letters it.
 *
 * Running it again changes nothing: unchanged vectors are skipped before the embedder
 * is called, links are set to the same value, and a batch that succeeds on a retry
 * clears the failure its earlier attempt recorded.
 */
export function createEmbeddingBatchHandler(stores: AppStores): JobHandler<Payload, EmbeddingBatchResult> {
  const { memories, vectors, embedder } = stores;
  const failures = stores.embeddingFailures;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const { namespace, items, batchSize } = ctx.data;
    const batches = chunk(items, batchSize);
    const result: EmbeddingBatchResult = {
      namespace,
      model: embedder.model,
      items: items.length,
      embedded: 0,
      unchanged: 0,
      linked: 0,
      refused: [],
      failedBatches: [],
    };
    let lastError: unknown;
    await ctx.progress(0, 'embedding', { batches: batches.length });

    for (let b = 0; b < batches.length; b++) {
      // A batch is the handler's step: a cancel or a timeout stops it between two, even when
      // the batch has nothing to embed (every text unchanged) and so never asks the embedder.
      ctx.signal.throwIfAborted();
      const batch = batches[b];
      try {
        const found = await memories.getMany(batch.map((i) => i.id));
        const owners = new Map<string, Memory>();
        const accepted = batch.filter((item, i) => {
          const m = found[i];
          if (
            m &&
            ctx.tenant &&
            (m.tenant.orgId !== ctx.tenant.orgId || (ctx.tenant.workspaceId && m.tenant.workspaceId !== ctx.tenant.workspaceId))
          ) {
            result.refused.push(item.id);
            return false;
          }
          if (m) owners.set(item.id, m);
          return true;
        });
        const prints = await vectors.store.fingerprints(
          namespace,
          accepted.map((i) => i.id),
        );
        const todo = accepted.filter((item, i) => prints[i]?.model !== embedder.model || prints[i]?.textHash !== hashText(item.text));
        const embedded = await embedAll(
          embedder,
          todo.map((i) => i.text),
          ctx.signal,
        );
        const inputs: VectorInput[] = todo.map((item, i) => ({
          id: item.id,
          text: item.text,
          vector: embedded[i],
          model: embedder.model,
          tenant: ctx.tenant ?? owners.get(item.id)?.tenant,
          metadata: { jobId: ctx.jobId },
        }));
        const outcomes = await vectors.store.upsertMany(namespace, inputs);
        for (const item of accepted) {
          const owner = owners.get(item.id);
          const ref = embeddingRef(namespace, item.id);
          if (owner && owner.embeddingId !== ref && (await memories.linkEmbedding(item.id, ref))) result.linked++;
        }
        result.embedded += outcomes.filter((o) => o !== 'unchanged').length;
        result.unchanged += accepted.length - outcomes.filter((o) => o !== 'unchanged').length;
        await failures.clear(namespace, runId, b);
      } catch (err) {
        // A job out of time stops here; its retry will redo the batch.
        if (ctx.signal.aborted) throw err;
        lastError = err;
        const failed: FailedBatch = {
          batch: b,
          ids: batch.map((i) => i.id),
          error: err instanceof Error ? err.message : String(err),
          errorClass: classifyError(err).errorClass,
        };
        result.failedBatches.push(failed);
        await failures.record(namespace, { runId, jobId: ctx.jobId, ...failed });
        ctx.logger.warn({ err, batch: b, namespace }, 'embedding batch failed; going on with the next');
      }
      await ctx.progress(Math.min(99, (100 * (b + 1)) / batches.length), 'embedding', {
        batch: b + 1,
        of: batches.length,
        failed: result.failedBatches.length,
      });
    }

    // Every batch failed: the runtime classifies the last error (a store's VALIDATION
    // refusal, another model or tenant, is permanent there; a network error retries).
    if (result.failedBatches.length === batches.length) throw lastError;
    await ctx.progress(100, 'complete', { embedded: result.embedded, failed: result.failedBatches.length });
    return result;
  };
}
