import type { z } from 'zod';
import type { trajectoryProcessSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { tenantCovers } from '@/lib/jobs/tenant-key';
import { toTrainingSamples } from './trajectories/to-training-samples';
import type { Trajectory } from './trajectories/trajectory';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof trajectoryProcessSchema>;

/** Trajectories committed per transaction: few round trips, small transactions. */
const COMMIT_BATCH = 50;

export interface TrajectoryProcessResult {
  processed: number;
  samples: number;
  /** Already processed (by an earlier attempt, or listed twice). */
  alreadyProcessed: number;
  /** Listed in `trajectoryIds` but not found, or of another tenant than the job's. */
  missing: number;
}

/**
 * trajectory-process: turns raw trajectories into training samples (state features →
 * action label, with the discounted return), either the listed ones or the oldest
 * unprocessed up to `limit` (only the job's tenant's when it has one). Each batch
 * writes its samples and marks its trajectories processed in one transaction, and
 * sample ids derive from the trajectory, so a retry neither loses nor duplicates one.
 */
export function createTrajectoryProcessHandler(stores: AppStores): JobHandler<Payload, TrajectoryProcessResult> {
  const { trajectories, samples } = stores;

  return async (ctx) => {
    const d = ctx.data;
    const inScope = (t: Trajectory) => !ctx.tenant || tenantCovers(ctx.tenant, t.tenant);
    const result: TrajectoryProcessResult = { processed: 0, samples: 0, alreadyProcessed: 0, missing: 0 };
    await ctx.progress(0, 'selecting');

    const selected: Trajectory[] = [];
    if (d.trajectoryIds) {
      const ids = [...new Set(d.trajectoryIds)];
      result.alreadyProcessed += d.trajectoryIds.length - ids.length;
      for (let i = 0; i < ids.length; i += 500) {
        for (const t of await trajectories.getMany(ids.slice(i, i + 500))) {
          if (!t || !inScope(t)) result.missing++;
          else if (t.processedAt !== undefined) result.alreadyProcessed++;
          else selected.push(t);
        }
      }
    } else {
      // Walk `pending` by rank; trajectories of other tenants are passed over, not removed.
      for (let offset = 0; selected.length < d.limit; offset += 500) {
        const ids = await trajectories.pendingIds(offset, 500);
        if (ids.length === 0) break;
        const found = await trajectories.getMany(ids);
        const stale = ids.filter((_, i) => !found[i] || found[i]!.processedAt !== undefined);
        await trajectories.unpend(stale);
        if (stale.length) offset -= stale.length;
        for (const t of found) if (t && t.processedAt === undefined && inScope(t) && selected.length < d.limit) selected.push(t);
        if (ids.length < 500) break;
      }
    }

    const total = selected.length;
    await ctx.progress(5, 'processing', { total });
    for (let i = 0; i < total; i += COMMIT_BATCH) {
      ctx.signal.throwIfAborted();
      const items = selected.slice(i, i + COMMIT_BATCH).map((trajectory) => ({ trajectory, samples: toTrainingSamples(trajectory) }));
      await trajectories.commitProcessed(items, samples, Date.now());
      result.processed += items.length;
      result.samples += items.reduce((n, it) => n + it.samples.length, 0);
      await ctx.progress(5 + (95 * result.processed) / total, 'processing', { processed: result.processed, total });
    }
    await ctx.progress(100, 'complete', { ...result });
    return result;
  };
}
