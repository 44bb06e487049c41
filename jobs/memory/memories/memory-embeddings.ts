import type { Embedder } from '../../shared/ports/embedder/embedder';
import { embedAll } from '../../shared/ports/embedder/embedder';
import type { VectorStore } from '../../embedding/vectors/vector-store';
import { embeddingRef, MEMORY_VECTOR_NAMESPACE, parseEmbeddingRef, type Memory } from './memory';
import type { MemoryStore } from './memory-store';

/**
 * Memories' vectors by the current embedder's model. A memory whose vector is of that
 * model uses it; the others are embedded, and stored in the `memories` namespace and
 * linked (embeddingId) unless the memory points at another namespace's vector, which is
 * not ours to replace. Every write is an upsert of the same value, so calling this
 * again (a retried job) changes nothing.
 */
export class MemoryEmbeddings {
  constructor(
    private readonly memories: MemoryStore,
    private readonly vectors: VectorStore,
    private readonly embedder: Embedder,
  ) {}

  async ensure(
    list: readonly Memory[],
    signal?: AbortSignal,
    onProgress?: (done: number, total: number) => Promise<void>,
  ): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const byNamespace = new Map<string, Array<{ memory: Memory; vectorId: string }>>();
    for (const memory of list) {
      const ref = memory.embeddingId ? parseEmbeddingRef(memory.embeddingId) : undefined;
      if (!ref) continue;
      const group = byNamespace.get(ref.namespace) ?? [];
      group.push({ memory, vectorId: ref.vectorId });
      byNamespace.set(ref.namespace, group);
    }
    const foreignStale = new Set<string>();
    for (const [namespace, group] of byNamespace) {
      const stored = await this.vectors.getMany(
        namespace,
        group.map((g) => g.vectorId),
      );
      group.forEach((g, i) => {
        const v = stored[i];
        if (v && v.model === this.embedder.model) out.set(g.memory.id, v.vector);
        else if (v && namespace !== MEMORY_VECTOR_NAMESPACE) foreignStale.add(g.memory.id);
      });
    }

    const missing = list.filter((m) => !out.has(m.id));
    let done = list.length - missing.length;
    await onProgress?.(done, list.length);
    for (let i = 0; i < missing.length; i += 32) {
      const batch = missing.slice(i, i + 32);
      const vectors = await embedAll(
        this.embedder,
        batch.map((m) => m.content),
        signal,
      );
      const owned = batch.map((m, j) => ({ m, v: vectors[j] })).filter(({ m }) => !foreignStale.has(m.id));
      await this.vectors.upsertMany(
        MEMORY_VECTOR_NAMESPACE,
        owned.map(({ m, v }) => ({
          id: m.id,
          text: m.content,
          vector: v,
          model: this.embedder.model,
          tenant: m.tenant,
          metadata: { kind: m.kind, ...(m.userId ? { userId: m.userId } : {}) },
        })),
      );
      for (const { m } of owned) {
        const ref = embeddingRef(MEMORY_VECTOR_NAMESPACE, m.id);
        if (m.embeddingId !== ref) await this.memories.linkEmbedding(m.id, ref);
      }
      for (const [j, m] of batch.entries()) out.set(m.id, vectors[j]);
      done += batch.length;
      await onProgress?.(done, list.length);
    }
    return out;
  }
}
