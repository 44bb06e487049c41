import type { Logger } from '@/lib/logging/logger';
import { VectorIndex, type SearchOptions, type VectorIndexOptions, type VectorMatch } from './vector-index';
import type { VectorStore } from './vector-store';

/**
 * The durable store plus this process's in-memory index of each namespace. One per
 * process (made by jobs/app-stores.ts), so every handler in a process shares the graphs.
 */
export class VectorService {
  private readonly indexes = new Map<string, VectorIndex>();

  constructor(
    readonly store: VectorStore,
    private readonly opts: VectorIndexOptions & { logger?: Logger } = {},
  ) {}

  /** This process's index of the namespace, loaded on its first search. */
  index(namespace: string): VectorIndex {
    let index = this.indexes.get(namespace);
    if (!index) {
      index = new VectorIndex(namespace, this.store, this.opts);
      this.indexes.set(namespace, index);
    }
    return index;
  }

  search(namespace: string, query: Float32Array, k: number, opts: SearchOptions = {}): Promise<VectorMatch[]> {
    return this.index(namespace).search(query, k, opts);
  }

  /**
   * Compacts the namespace: a new generation in Redis (tombstones reset), then this
   * process's graphs rebuilt from the vectors while searches continue on the old ones.
   * Other processes see the new generation on their next search and rebuild too.
   */
  async compact(namespace: string): Promise<void> {
    await this.store.newGeneration(namespace);
    await this.index(namespace).rebuild();
  }
}
