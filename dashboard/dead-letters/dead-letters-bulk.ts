import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import type { BulkProgress } from '@/lib/dlq/bulk-operations';
import { DLQ_BULK_BATCH, MAX_REPLAY_ALL, MAX_SELECTED_DEAD_LETTERS } from '@/dashboard/client/dead-letters-limits';
import { deadLetterIdSchema } from '@/lib/dlq/dead-letter-id';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import {
  awaitReplayOutcomes,
  describeReplayOutcomes,
  REPLAY_OUTCOME_WAIT_MS,
  type ReplayedJob,
  type ReplayOutcomes,
  replayedJobOf,
} from '@/lib/dlq/replay-outcomes';
import { AppError, isAppError } from '@/lib/errors/app-error';
import type { BulkOperation, BulkRunner, ReportProgress } from '@/dashboard/live/bulk-runner';
import { describeFilters, hasFilter, toStoreFilter, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { refusedInBulk } from './dead-letters-replay';

/**
 * The dead-letters page's multi-entry actions on top of the DLQ store: a few selected
 * entries at once (in the request), or every match of a filter (in the background,
 * with progress the page polls). Each entry is re-checked by the store as it goes, so
 * an entry that changed meanwhile is skipped, never acted on twice.
 */

/** Entries replayed concurrently within a selected action: enough to hide round trips, few enough to be gentle. */
const SELECTED_CONCURRENCY = 10;

export const selectedEntrySchema = z.object({
  id: deadLetterIdSchema,
  /** The replay count the operator saw: a stale one is skipped (someone replayed it meanwhile). */
  replays: z.number().int().min(0).max(1_000_000),
});
export type SelectedEntry = z.infer<typeof selectedEntrySchema>;

export interface SelectedOutcome {
  /** Entries acted on. */
  done: string[];
  /** Entries left alone because they changed or vanished meanwhile, with the reason. */
  skipped: Array<{ id: string; reason: string }>;
  /** Entries that failed for another reason (Redis, an enqueue refused). */
  failed: Array<{ id: string; reason: string }>;
  /** Replays only: what the `done` ones' jobs did within the bounded wait (a replay enqueued is not a repair yet). */
  outcomes?: ReplayOutcomes;
}

/**
 * Replays the selected entries, each only if its replay count is still the one the
 * operator saw, then waits up to `waitMs` for all their jobs together: a replay that
 * failed at once (a disabled webhook) is counted apart, never as a success. A
 * destructive type's entry is skipped with the reason: it is replayed one at a time,
 * by an admin who types its org id.
 */
export async function replaySelected(
  bullpen: Bullpen,
  entries: SelectedEntry[],
  by: string,
  { waitMs = REPLAY_OUTCOME_WAIT_MS }: { waitMs?: number } = {},
): Promise<SelectedOutcome> {
  const replayed: ReplayedJob[] = [];
  const out = await forEachSelected(
    entries.map((e) => e.id),
    async (id, i) => {
      const entry = await bullpen.dlq.get(id);
      const refused = entry && refusedInBulk(bullpen, entry);
      if (refused) throw new AppError('CONFLICT', refused);
      replayed.push(replayedJobOf(await bullpen.dlq.replay(id, { by, expectedReplays: entries[i].replays })));
    },
  );
  return { ...out, outcomes: await awaitReplayOutcomes(bullpen.queues, replayed, { waitMs }) };
}

/** Discards the selected entries (pending or replayed ones; discarding twice is a no-op). */
export function discardSelected(bullpen: Bullpen, ids: string[], by: string): Promise<SelectedOutcome> {
  return forEachSelected(ids, (id) => bullpen.dlq.discard(id, by));
}

async function forEachSelected(ids: string[], act: (id: string, index: number) => Promise<unknown>): Promise<SelectedOutcome> {
  if (ids.length === 0 || ids.length > MAX_SELECTED_DEAD_LETTERS) {
    throw new AppError('VALIDATION', `Select between 1 and ${MAX_SELECTED_DEAD_LETTERS} dead letters (got ${ids.length})`);
  }
  if (new Set(ids).size !== ids.length) throw new AppError('VALIDATION', 'A dead letter is selected twice');
  const out: SelectedOutcome = { done: [], skipped: [], failed: [] };
  for (let start = 0; start < ids.length; start += SELECTED_CONCURRENCY) {
    const chunk = ids.slice(start, start + SELECTED_CONCURRENCY);
    const settled = await Promise.allSettled(chunk.map((id, k) => act(id, start + k)));
    settled.forEach((r, k) => {
      const id = chunk[k];
      if (r.status === 'fulfilled') out.done.push(id);
      else if (isAppError(r.reason) && (r.reason.code === 'CONFLICT' || r.reason.code === 'NOT_FOUND'))
        out.skipped.push({ id, reason: r.reason.message });
      else out.failed.push({ id, reason: (r.reason as Error)?.message ?? String(r.reason) });
    });
  }
  return out;
}

type UrlFilter = Omit<DeadLetterFilters, 'page' | 'pageSize'>;

export interface StartedBulk {
  operation: BulkOperation;
  /** Settles with the final record; the dashboard does not wait for it, tests do. */
  finished: Promise<BulkOperation>;
}

/**
 * Starts "replay all that match" in the background: at most `limit` entries, in
 * batches of DLQ_BULK_BATCH, progress written after each batch. Without a status in
 * the filter only pending entries are replayed; discarded and replaying ones never are.
 */
export async function startReplayAll(
  bullpen: Bullpen,
  bulk: BulkRunner,
  f: UrlFilter,
  opts: { by: string; limit: number; now: number; waitMs?: number },
): Promise<StartedBulk> {
  const limit = z.number().int().min(1).max(MAX_REPLAY_ALL).safeParse(opts.limit);
  if (!limit.success) throw new AppError('VALIDATION', `The limit must be a whole number from 1 to ${MAX_REPLAY_ALL.toLocaleString('en')}`);
  const status = f.status ?? 'pending';
  if (status !== 'pending' && status !== 'replayed') {
    throw new AppError('VALIDATION', `Only pending or replayed dead letters can be replayed, not ${status} ones`);
  }
  const filter = { ...toStoreFilter(f, opts.now), status };
  const matching = (await bullpen.dlq.list(filter, { limit: 1 })).total;
  if (matching === 0) throw new AppError('NOT_FOUND', `No ${status} dead letter matches ${describeFilters(f)}`);
  const spec = {
    kind: 'dlq.replay-all',
    target: { kind: 'dead-letters', id: describeFilters({ ...f, status }) },
    by: opts.by,
    total: Math.min(matching, limit.data),
  };
  return bulk.start(spec, (report) =>
    withSerialReports(report, async (push) => {
      const replayed: ReplayedJob[] = [];
      const r = await bullpen.dlq.replayMany(filter, {
        by: opts.by,
        limit: limit.data,
        batchSize: DLQ_BULK_BATCH,
        onProgress: push,
        refuse: (entry) => refusedInBulk(bullpen, entry),
        onReplayed: (entry: DeadLetterEntry) => replayed.push(replayedJobOf(entry)),
      });
      // Once every batch is enqueued, one bounded wait for all of them (docs/dead-letters.md#bulk-actions).
      const waitMs = opts.waitMs ?? REPLAY_OUTCOME_WAIT_MS;
      const o = await awaitReplayOutcomes(bullpen.queues, replayed, { waitMs });
      const firstError = r.errors[0] ? `; first failure: ${r.errors[0].id}: ${r.errors[0].message}` : '';
      const firstAtOnce = o.failures[0] ? ` First: ${o.failures[0].id}: ${o.failures[0].message}.` : '';
      return {
        // An enqueued replay whose job failed at once is no success: it counts as failed.
        succeeded: r.succeeded - o.failed,
        skipped: r.skipped,
        failed: r.failed + o.failed,
        message: `Enqueued ${r.succeeded.toLocaleString('en')} replays of ${r.processed.toLocaleString('en')}; ${describeSkips(r.skipped, r.refused)}, ${r.failed} not enqueued${firstError}.${r.succeeded ? ` Of the enqueued: ${describeReplayOutcomes(o, waitMs)}.` : ''}${firstAtOnce}`,
      };
    }),
  );
}

/**
 * Starts a purge of every entry matching the filter (their failed jobs too, so the
 * reconciler cannot bring them back). Refused without a filter: emptying the whole
 * DLQ by accident is the one mistake this page must not make easy.
 */
export async function startPurge(
  bullpen: Bullpen,
  bulk: BulkRunner,
  f: UrlFilter,
  opts: { by: string; now: number },
): Promise<StartedBulk> {
  if (!hasFilter(f)) {
    throw new AppError('VALIDATION', 'Purge needs at least one filter (type, tenant, error class, status or time); choose what to remove');
  }
  const filter = toStoreFilter(f, opts.now);
  const matching = (await bullpen.dlq.list(filter, { limit: 1 })).total;
  if (matching === 0) throw new AppError('NOT_FOUND', `No dead letter matches ${describeFilters(f)}`);
  const spec = { kind: 'dlq.purge', target: { kind: 'dead-letters', id: describeFilters(f) }, by: opts.by, total: matching };
  return bulk.start(spec, (report) =>
    withSerialReports(report, async (push) => {
      let last: BulkProgress = { processed: 0, succeeded: 0, skipped: 0, failed: 0 };
      const removed = await bullpen.dlq.purge(filter, {
        by: opts.by,
        batchSize: DLQ_BULK_BATCH,
        onProgress: (p) => {
          last = p;
          push(p);
        },
      });
      return {
        succeeded: removed,
        skipped: last.processed - removed,
        failed: 0,
        message: `Purged ${removed.toLocaleString('en')} dead letters.`,
      };
    }),
  );
}

/**
 * The store reports progress synchronously after each batch; the record is written
 * to Redis asynchronously. Writes are chained so an older count never lands after a
 * newer one, and the last write is awaited before the final record.
 */
async function withSerialReports<T>(report: ReportProgress, work: (push: (p: BulkProgress) => void) => Promise<T>): Promise<T> {
  let chain = Promise.resolve();
  const push = (p: BulkProgress) => {
    chain = chain.then(() => report({ succeeded: p.succeeded, skipped: p.skipped, failed: p.failed })).catch(() => undefined);
  };
  try {
    return await work(push);
  } finally {
    await chain;
  }
}

/** A bulk replay's skips, told apart: one changed under the replay, the other a type this path will not replay. */
function describeSkips(skipped: number, refused: number): string {
  const changed = skipped - refused;
  const parts = [`${changed.toLocaleString('en')} skipped (changed meanwhile)`];
  if (refused > 0) parts.push(`${refused.toLocaleString('en')} left pending (a destructive type: an admin replays those one by one)`);
  return parts.join(', ');
}
