import type { VectorStore } from '../embedding/vectors/vector-store';
import type { z } from 'zod';
import type { memoryConsolidationSchema } from './schemas';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobHandler } from '@/lib/runtime/handler';
import { clusterBySimilarity } from './memories/clustering';
import { MEMORY_VECTOR_NAMESPACE, semanticMemoryId, type Memory } from './memories/memory';
import { MemoryEmbeddings } from './memories/memory-embeddings';
import { memoryScope } from './memories/memory-scope';
import type { MemoryStore } from './memories/memory-store';
import type { Embedder } from '../shared/ports/embedder/embedder';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof memoryConsolidationSchema>;

export interface ConsolidationResult {
  scanned: number;
  clusters: number;
  /** Semantic memories this job stands for (made by this attempt or an earlier one). */
  semanticIds: string[];
  sourcesConsolidated: number;
  strategy: Payload['strategy'];
}

/**
 * memory-consolidation: clusters a tenant's episodic memories by cosine similarity of
 * their vectors, writes one semantic memory per cluster, and (strategy `merge`) halves
 * the sources' importance. Progress: analyzing 10 → generating 40 → indexing 80 →
 * complete 100.
 *
 * Idempotent in three ways. The plan (the clusters) is stored under the job id on the
 * first attempt, so a retry works on the same clusters. A semantic memory's id derives
 * from its sorted source ids, and it is saved together with the sources' marks and
 * halving in one script that does nothing when that id exists. Sources that a
 * consolidation folded in are skipped by later jobs, so a DLQ replay finds nothing new.
 */
export function createMemoryConsolidationHandler(stores: AppStores): JobHandler<Payload, ConsolidationResult> {
  const { memories, vectors, embedder, synthesiser } = stores;
  const embeddings = new MemoryEmbeddings(memories, vectors.store, embedder);

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const d = ctx.data;
    const scope = memoryScope(ctx.tenant, d.workspaceId);
    const run = await memories.getRun(runId);
    if (run.result) return JSON.parse(run.result) as ConsolidationResult;

    await ctx.progress(10, 'analyzing');
    await requireCompatibleNamespace(vectors.store, embedder);
    let plan: string[][];
    let scanned: number;
    if (run.plan) {
      plan = JSON.parse(run.plan) as string[][];
      scanned = Number(run.scanned ?? 0);
    } else {
      const candidates = await loadCandidates(memories, scope, d);
      const vectorsById = await embeddings.ensure(candidates, ctx.signal, async (done, total) => {
        if (done > 0) await ctx.progress(10 + (25 * done) / Math.max(1, total), 'analyzing', { vectors: done, of: total });
      });
      plan = planClusters(candidates, vectorsById, d);
      scanned = candidates.length;
      await memories.putRun(runId, { plan: JSON.stringify(plan), scanned });
    }

    await ctx.progress(40, 'generating', { clusters: plan.length });
    for (let i = 0; i < plan.length; i++) {
      ctx.signal.throwIfAborted();
      const id = semanticMemoryId(plan[i]);
      if (!(await memories.get(id))) {
        const sources = (await memories.getMany(plan[i])).filter((m): m is Memory => m !== undefined);
        // Sources deleted since the plan was made (a cleanup ran): a smaller cluster is still one memory.
        if (sources.length >= d.minClusterSize) {
          const content = await synthesiser.synthesise(
            sources.map((m) => m.content),
            ctx.signal,
          );
          const now = Date.now();
          await memories.saveConsolidated(
            {
              id,
              kind: 'semantic',
              content,
              // A fact the cluster agrees on matters at least as much as its most important source.
              importance: Math.max(...sources.map((m) => m.importance)),
              tenant: sources[0].tenant,
              userId: sources[0].userId,
              metadata: { synthesiser: synthesiser.name, consolidatedBy: ctx.jobId, similarityThreshold: d.similarityThreshold },
              sourceIds: sources.map((m) => m.id),
              createdAt: now,
              updatedAt: now,
            },
            d.strategy === 'merge',
            now,
          );
        }
      }
      await ctx.progress(40 + (40 * (i + 1)) / plan.length, 'generating', { cluster: i + 1, of: plan.length });
    }

    await ctx.progress(80, 'indexing');
    const saved = (await memories.getMany(plan.map(semanticMemoryId))).filter((m): m is Memory => m !== undefined);
    await embeddings.ensure(saved, ctx.signal);

    const result: ConsolidationResult = {
      scanned,
      clusters: plan.length,
      semanticIds: saved.map((m) => m.id),
      sourcesConsolidated: saved.reduce((n, m) => n + (m.sourceIds?.length ?? 0), 0),
      strategy: d.strategy,
    };
    await memories.putRun(runId, { result: JSON.stringify(result) });
    await ctx.progress(100, 'complete', { clusters: plan.length });
    return result;
  };
}

/** Episodic memories not consolidated yet, oldest first, up to `maxMemories`. */
async function loadCandidates(memories: MemoryStore, scope: ReturnType<typeof memoryScope>, d: Payload): Promise<Memory[]> {
  const out: Memory[] = [];
  for await (const batch of memories.batches(scope, { kind: 'episodic', batchSize: 500 })) {
    for (const m of batch) {
      if (m.consolidatedInto || (d.userId && m.userId !== d.userId)) continue;
      out.push(m);
      if (out.length >= d.maxMemories) return out;
    }
  }
  return out;
}

/**
 * Clusters per (organisation, workspace, user): a semantic memory never mixes tenants
 * or people. Member ids are sorted so the plan, and the ids derived from it, are stable.
 */
function planClusters(candidates: Memory[], vectorsById: Map<string, Float32Array>, d: Payload): string[][] {
  const groups = new Map<string, Memory[]>();
  for (const m of candidates) {
    const key = [m.tenant.orgId, m.tenant.workspaceId ?? '', m.userId ?? ''].join('\u0000');
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const plan: string[][] = [];
  for (const group of groups.values()) {
    const items = group.filter((m) => vectorsById.has(m.id)).map((m) => ({ id: m.id, vector: vectorsById.get(m.id)! }));
    for (const cluster of clusterBySimilarity(items, d.similarityThreshold)) {
      if (cluster.length >= d.minClusterSize) plan.push([...cluster].sort());
    }
  }
  return plan;
}

/** Refuses before any write when the memories' namespace holds another model's vectors (an empty one adopts ours). */
async function requireCompatibleNamespace(store: VectorStore, embedder: Embedder): Promise<void> {
  const stats = await store.stats(MEMORY_VECTOR_NAMESPACE);
  if (stats.model && stats.model !== embedder.model && stats.live > 0) {
    throw new PermanentError(
      `Namespace "${MEMORY_VECTOR_NAMESPACE}" holds vectors of model "${stats.model}" but the embedder is "${embedder.model}": ` +
        `run embedding-reindex {"namespace":"${MEMORY_VECTOR_NAMESPACE}"} first`,
      'VALIDATION',
    );
  }
}
