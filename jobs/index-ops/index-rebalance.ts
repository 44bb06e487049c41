import type { z } from 'zod';
import type { indexRebalanceSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { planTransfers, type ShardTransfer } from '../embedding/vectors/shards';
import type { NamespaceStats } from '../embedding/vectors/vector-store';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof indexRebalanceSchema>;

/** Vectors moved per script call. */
const MOVE_BATCH = 200;

export interface ShardCounts {
  shardSizes: number[];
  imbalance: number;
}

export interface RebalanceOutcome {
  namespace: string;
  action: 'rebalanced' | 'skipped';
  /** Why nothing moved, when skipped. */
  reason?: 'below-threshold' | 'already-as-even-as-possible';
  moved: number;
  before: ShardCounts;
  after: ShardCounts;
}

export interface RebalanceResult {
  threshold: number;
  namespaces: RebalanceOutcome[];
}

/**
 * index-rebalance: a namespace's vectors are spread over N shards (each its own ANN
 * graph; a search asks all and merges). New vectors go to the shard their id hashes
 * to, so shards start even, but deletions can drain one more than others. When the
 * imbalance, (largest − smallest) / mean shard size, passes `threshold`, the fewest
 * vectors are moved from the fullest shards to the emptiest, until no two shards
 * differ by more than one, and the graphs are rebuilt (searches go on meanwhile).
 *
 * The plan (counts per shard pair) is stored under the job id before the first move,
 * and each move batch adds to its transfer's counter in the same script, so a retry
 * moves exactly what is left of the same plan.
 */
export function createIndexRebalanceHandler(stores: AppStores): JobHandler<Payload, RebalanceResult> {
  const { vectors } = stores;
  const store = vectors.store;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const { threshold } = ctx.data;
    const namespaces = ctx.data.namespace ? [ctx.data.namespace] : await store.namespaces();
    const outcomes: RebalanceOutcome[] = [];
    await ctx.progress(0, 'rebalancing', { namespaces: namespaces.length });
    for (let i = 0; i < namespaces.length; i++) {
      const namespace = namespaces[i];
      let run = await store.getRun(namespace, runId);
      if (run.result) {
        outcomes.push(JSON.parse(run.result) as RebalanceOutcome);
        continue;
      }
      const before = run.before ? (JSON.parse(run.before) as ShardCounts) : shardCounts(await store.stats(namespace));
      let plan: ShardTransfer[];
      if (run.plan) {
        plan = JSON.parse(run.plan) as ShardTransfer[];
      } else {
        plan = before.imbalance > threshold ? planTransfers(before.shardSizes) : [];
        await store.putRun(namespace, runId, { plan: JSON.stringify(plan), before: JSON.stringify(before) });
      }

      for (let t = 0; t < plan.length; t++) {
        const { from, to, count } = plan[t];
        for (;;) {
          ctx.signal.throwIfAborted();
          run = await store.getRun(namespace, runId);
          const left = count - Number(run[`moved:${t}`] ?? 0);
          if (left <= 0) break;
          const ids = await store.shardTail(namespace, from, Math.min(left, MOVE_BATCH));
          // The shard ran dry (deletions since the plan): the rest of this transfer is moot.
          if (ids.length === 0) break;
          await store.move(namespace, runId, `moved:${t}`, { from, to, ids });
        }
        await ctx.progress(Math.min(99, (100 * (i + (t + 1) / plan.length)) / namespaces.length), 'rebalancing', {
          namespace,
          transfer: t + 1,
          of: plan.length,
        });
      }
      run = await store.getRun(namespace, runId);
      const moved = plan.reduce((n, _t, t) => n + Number(run[`moved:${t}`] ?? 0), 0);
      if (plan.length > 0) await vectors.compact(namespace);

      const outcome: RebalanceOutcome = {
        namespace,
        action: plan.length > 0 ? 'rebalanced' : 'skipped',
        reason: plan.length > 0 ? undefined : before.imbalance > threshold ? 'already-as-even-as-possible' : 'below-threshold',
        moved,
        before,
        after: shardCounts(await store.stats(namespace)),
      };
      await store.putRun(namespace, runId, { result: JSON.stringify(outcome) });
      outcomes.push(outcome);
      await ctx.progress(Math.min(99, (100 * (i + 1)) / namespaces.length), 'rebalancing', { namespace, action: outcome.action });
    }
    await ctx.progress(100, 'complete', { rebalanced: outcomes.filter((o) => o.action === 'rebalanced').length });
    return { threshold, namespaces: outcomes };
  };
}

function shardCounts(s: NamespaceStats): ShardCounts {
  return { shardSizes: s.shardSizes, imbalance: s.imbalance };
}
