import type { z } from 'zod';
import type { sessionArchiveSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import type { ArchiveResult } from './sessions/session-archive-store';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof sessionArchiveSchema>;

export type SessionArchiveResult = ArchiveResult & { cutoff: number };

/**
 * session-archive: appends every session idle longer than `olderThanMs` to
 * `<dataDir>/archives/sessions/<orgId>/<YYYY-MM-DD>.jsonl`, then removes it, in
 * batches of `batchSize`. Each batch is write-ahead (see SessionArchiveStore), so a job
 * killed at any point and run again archives every session exactly once. Only one
 * archive job runs at a time; another waits for the lease with a retryable CONFLICT.
 */
export function createSessionArchiveHandler(stores: AppStores): JobHandler<Payload, SessionArchiveResult> {
  const archive = stores.sessionArchive;

  return async (ctx) => {
    const now = Date.now();
    const cutoff = now - ctx.data.olderThanMs;
    const result = await archive.archiveIdle({
      owner: `session-archive:${ctx.jobId}`,
      cutoff,
      batchSize: ctx.data.batchSize,
      now,
      signal: ctx.signal,
      onProgress: (archived, total) =>
        ctx.progress(total === 0 ? 99 : Math.min(99, (100 * archived) / total), 'archiving', { archived, total }),
    });
    await ctx.progress(100, 'complete', { archived: result.archived, recovered: result.recovered });
    return { ...result, cutoff };
  };
}
