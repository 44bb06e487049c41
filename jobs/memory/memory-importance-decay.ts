import type { z } from 'zod';
import type { memoryImportanceDecaySchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { memoryScope } from './memories/memory-scope';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof memoryImportanceDecaySchema>;

export interface DecayResult {
  /** Memories the job looked at. */
  scanned: number;
  /** Memories whose importance it lowered (the others were at or below the floor). */
  lowered: number;
  decayFactor: number;
  floor: number;
}

/**
 * memory-importance-decay: multiplies every memory's importance in scope (the job's
 * tenant, or all) by `decayFactor`, never below `floor`; memories already at or below
 * the floor are left alone. Runs every six hours by default.
 *
 * Each batch is one script that lowers the batch and moves the job's cursor, and runs
 * only if the cursor is where the batch expects it. A retry therefore continues after
 * the last applied batch, and a batch is never decayed twice by the same job.
 */
export function createMemoryImportanceDecayHandler(stores: AppStores): JobHandler<Payload, DecayResult> {
  const { memories } = stores;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const d = ctx.data;
    const scope = memoryScope(ctx.tenant, d.workspaceId);
    let run = await memories.getRun(runId);
    if (run.result) return JSON.parse(run.result) as DecayResult;

    const total = await memories.count(scope);
    await ctx.progress(0, 'decaying', { total });
    let cursor = run.cursor ?? '';
    for (;;) {
      ctx.signal.throwIfAborted();
      const batch = await memories.members(scope, { after: cursor || undefined, limit: d.batchSize });
      if (batch.length === 0) break;
      const lowered = await memories.decayBatch(runId, batch, { factor: d.decayFactor, floor: d.floor, expectedCursor: cursor });
      if (lowered === -1) {
        // Another execution of this job moved the cursor first: continue from where it is.
        run = await memories.getRun(runId);
        cursor = run.cursor ?? '';
        continue;
      }
      cursor = batch[batch.length - 1];
      const scanned = Number((await memories.getRun(runId)).scanned ?? 0);
      await ctx.progress(Math.min(99, (100 * scanned) / Math.max(1, total)), 'decaying', { scanned, total });
    }

    run = await memories.getRun(runId);
    const result: DecayResult = {
      scanned: Number(run.scanned ?? 0),
      lowered: Number(run.lowered ?? 0),
      decayFactor: d.decayFactor,
      floor: d.floor,
    };
    await memories.putRun(runId, { result: JSON.stringify(result) });
    await ctx.progress(100, 'complete', { ...result });
    return result;
  };
}
