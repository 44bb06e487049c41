import type { PayloadOf } from '@/lib/jobs/registry';
import type { JobHandler } from '@/lib/runtime/handler';
import { SessionArchive, type ArchiveResult } from '@/lib/domain/sessions/session-archive';
import { SessionStore } from '@/lib/domain/sessions/session-store';
import type { HandlerDeps } from './deps';

type Payload = PayloadOf<'session-archive'>;

export type SessionArchiveResult = ArchiveResult & { cutoff: number };

/**
 * session-archive: appends every session idle longer than `olderThanMs` to
 * `<dataDir>/archives/sessions/<orgId>/<YYYY-MM-DD>.jsonl`, then removes it, in
 * batches of `batchSize`. Each batch is write-ahead (see SessionArchive), so a job
 * killed at any point and run again archives every session exactly once. Only one
 * archive job runs at a time; another waits for the lease with a retryable CONFLICT.
 */
export function createSessionArchiveHandler(deps: HandlerDeps): JobHandler<Payload, SessionArchiveResult> {
  const { redis, keys, config } = deps.bullpen;
  const archive = new SessionArchive(redis, keys, new SessionStore(redis, keys), SessionArchive.rootFor(config.dataDir));

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
