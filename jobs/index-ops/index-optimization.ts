import type { z } from 'zod';
import type { indexOptimizationSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import type { NamespaceStats } from '../embedding/vectors/vector-store';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof indexOptimizationSchema>;

export interface IndexCounts {
  live: number;
  deleted: number;
  deletedRatio: number;
  generation: number;
}

export interface OptimizationOutcome {
  namespace: string;
  action: 'rebuilt' | 'skipped';
  before: IndexCounts;
  after: IndexCounts;
}

export interface OptimizationResult {
  threshold: number;
  namespaces: OptimizationOutcome[];
}

/**
 * index-optimization: rebuilds a namespace's ANN graphs when its deleted ratio
 * (vectors deleted or replaced since the last rebuild, over live + deleted) passes
 * `threshold`. The vectors themselves are deleted from Redis at once; what accumulates
 * are tombstones in the in-memory HNSW graphs, which cost memory and recall. A rebuild
 * starts a new generation in Redis (the ratio returns to 0) and builds fresh graphs
 * while searches continue on the old ones; other processes rebuild on their next search.
 *
 * A second run finds the ratio at 0 and skips; the outcome per namespace is stored
 * under the job id, so a retry reports what the first attempt did.
 */
export function createIndexOptimizationHandler(stores: AppStores): JobHandler<Payload, OptimizationResult> {
  const { vectors } = stores;
  const store = vectors.store;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const { threshold } = ctx.data;
    const namespaces = ctx.data.namespace ? [ctx.data.namespace] : await store.namespaces();
    const outcomes: OptimizationOutcome[] = [];
    await ctx.progress(0, 'optimizing', { namespaces: namespaces.length });
    for (let i = 0; i < namespaces.length; i++) {
      ctx.signal.throwIfAborted();
      const namespace = namespaces[i];
      const run = await store.getRun(namespace, runId);
      if (run.result) {
        outcomes.push(JSON.parse(run.result) as OptimizationOutcome);
        continue;
      }
      const before = await store.stats(namespace);
      let action: OptimizationOutcome['action'] = 'skipped';
      if (before.deletedRatio > threshold) {
        await ctx.log(`${namespace}: deleted ratio ${before.deletedRatio.toFixed(3)} > ${threshold}, rebuilding`);
        await vectors.compact(namespace);
        action = 'rebuilt';
      }
      const outcome: OptimizationOutcome = { namespace, action, before: counts(before), after: counts(await store.stats(namespace)) };
      await store.putRun(namespace, runId, { result: JSON.stringify(outcome) });
      outcomes.push(outcome);
      await ctx.progress(Math.min(99, (100 * (i + 1)) / namespaces.length), 'optimizing', { namespace, action });
    }
    await ctx.progress(100, 'complete', { rebuilt: outcomes.filter((o) => o.action === 'rebuilt').length });
    return { threshold, namespaces: outcomes };
  };
}

function counts(s: NamespaceStats): IndexCounts {
  return { live: s.live, deleted: s.deleted, deletedRatio: s.deletedRatio, generation: s.generation };
}
