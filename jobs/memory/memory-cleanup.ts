import type { z } from 'zod';
import type { memoryCleanupSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { parseEmbeddingRef, type Memory } from './memories/memory';
import { memoryScope } from './memories/memory-scope';
import { jobRunId } from '../shared/job-run-id';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof memoryCleanupSchema>;

const DAY_MS = 24 * 60 * 60 * 1_000;

export interface CleanupResult {
  scanned: number;
  deleted: number;
  vectorsDeleted: number;
  /** Memories created before this time (ms) counted as old; absent without olderThanDays. */
  cutoff?: number;
  importanceBelow?: number;
}

/**
 * memory-cleanup: deletes the memories in scope whose importance is below
 * `importanceBelow` or that were created more than `olderThanDays` ago (either rule is
 * enough when both are given), each with its vector.
 *
 * The age cutoff is fixed on the first attempt and kept under the job id, so a retry an
 * hour later deletes by the same rule, not by a later "now". A vector goes before its
 * memory: a retry after a crash between the two still finds the memory and its link.
 */
export function createMemoryCleanupHandler(stores: AppStores): JobHandler<Payload, CleanupResult> {
  const { memories, vectors } = stores;

  return async (ctx) => {
    const runId = jobRunId(ctx);
    const d = ctx.data;
    const scope = memoryScope(ctx.tenant, d.workspaceId);
    const run = await memories.getRun(runId);
    if (run.result) return JSON.parse(run.result) as CleanupResult;

    let cutoff = run.cutoff ? Number(run.cutoff) : undefined;
    if (cutoff === undefined && d.olderThanDays !== undefined) {
      cutoff = Date.now() - d.olderThanDays * DAY_MS;
      await memories.putRun(runId, { cutoff });
    }
    const doomed = (m: Memory) =>
      (d.importanceBelow !== undefined && m.importance < d.importanceBelow) || (cutoff !== undefined && m.createdAt < cutoff);

    const total = await memories.count(scope);
    let after = run.cursor || undefined;
    let scanned = Number(run.scanned ?? 0);
    let deleted = Number(run.deleted ?? 0);
    let vectorsDeleted = Number(run.vectorsDeleted ?? 0);
    await ctx.progress(0, 'cleaning', { total });
    const ageOnly = d.importanceBelow === undefined && cutoff !== undefined;
    for (let walked = run.walked === '1'; !walked; ) {
      ctx.signal.throwIfAborted();
      const page = await memories.page(scope, { after, limit: d.batchSize });
      const batch = page.items.filter(doomed);
      for (const m of batch) {
        const ref = m.embeddingId ? parseEmbeddingRef(m.embeddingId) : undefined;
        if (ref && (await vectors.store.delete(ref.namespace, ref.vectorId))) vectorsDeleted++;
      }
      deleted += await memories.deleteMany(batch);
      scanned += page.items.length;
      after = page.next;
      // Oldest first: with only an age rule, the first memory young enough ends the walk.
      const last = page.items[page.items.length - 1];
      walked = !after || (ageOnly && last !== undefined && last.createdAt >= cutoff!);
      await memories.putRun(runId, { cursor: after ?? '', walked: walked ? 1 : 0, scanned, deleted, vectorsDeleted });
      await ctx.progress(Math.min(99, (100 * scanned) / Math.max(1, total)), 'cleaning', { scanned, deleted });
    }

    const result: CleanupResult = { scanned, deleted, vectorsDeleted, cutoff, importanceBelow: d.importanceBelow };
    await memories.putRun(runId, { result: JSON.stringify(result) });
    await ctx.progress(100, 'complete', { deleted, vectorsDeleted });
    return result;
  };
}
