import type { z } from 'zod';
import type { sessionCleanupSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof sessionCleanupSchema>;

export interface SessionCleanupResult {
  /** Sessions removed. */
  expired: number;
  /** Selected as idle but touched before their removal, so kept. */
  revived: number;
  cutoff: number;
}

/**
 * session-cleanup: removes every session (of all tenants) idle for longer than
 * `maxAgeMs`, `batchSize` at a time. Each batch's removal re-checks the idle time in
 * Redis, so a session used between selection and removal survives. Idempotent by
 * nature: a second run finds nothing idle past the cutoff. Runs every 15 minutes.
 */
export function createSessionCleanupHandler(stores: AppStores): JobHandler<Payload, SessionCleanupResult> {
  const { sessions } = stores;

  return async (ctx) => {
    const { maxAgeMs, batchSize } = ctx.data;
    const cutoff = Date.now() - maxAgeMs;
    const total = await sessions.countIdle(cutoff);
    const result: SessionCleanupResult = { expired: 0, revived: 0, cutoff };
    await ctx.progress(0, 'expiring', { total });
    for (;;) {
      ctx.signal.throwIfAborted();
      const batch = await sessions.idle(cutoff, batchSize);
      if (batch.length === 0) break;
      const removed = await sessions.expireIfIdle(batch, cutoff);
      result.expired += removed;
      result.revived += batch.length - removed;
      const done = result.expired + result.revived;
      await ctx.progress(Math.min(99, (100 * done) / Math.max(total, done)), 'expiring', { expired: result.expired, total });
    }
    await ctx.progress(100, 'complete', { ...result });
    return result;
  };
}
