import { z } from 'zod';
import { tenantCovers } from '../jobs/tenant-key';
import { AppError, isAppError } from '../errors/app-error';
import type { QueueRegistry } from '../jobs/queues';
import { tenantSchema, type Tenant } from '../jobs/tenant';
import type { Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import type { DlqKeys } from './dlq-keys';
import type { DeadLetterStatus } from './dead-letter-id';
import type { DeadLetterEntry } from './entry';
import { deadLetterFilterSchema, matchesFilter, parseOrThrow, type DeadLetterFilter, type ParsedFilter } from './filter';
import type { IndexPager } from './index-pager';
import { MAX_DLQ_BULK } from './dlq-limits';
import { REMOVE } from './scripts';

/** The most entries one replayMany/discardMany call touches. */
/**
 * What bulk operations need of the dead-letter store (which passes itself): the
 * single-entry operations they repeat, so both paths share one implementation.
 */
export interface EntryStore {
  replayAs(id: string, options: { by: string; expectedReplays?: number }, allowed: DeadLetterStatus[]): Promise<DeadLetterEntry>;
  discard(id: string, by: string): Promise<DeadLetterEntry>;
  getMany(ids: string[]): Promise<DeadLetterEntry[]>;
}

const DAY = 24 * 60 * 60 * 1000;

const bulkOptionsSchema = z.object({
  /** Who acts: written to each entry's history. */
  by: z.string().min(1).max(200),
  /** @defaultValue 10000 (also the maximum) */
  limit: z.number().int().min(1).max(MAX_DLQ_BULK).default(MAX_DLQ_BULK),
  /** Entries loaded and handled together. @defaultValue 100 */
  batchSize: z.number().int().min(1).max(500).default(100),
});

export interface BulkProgress {
  /** Entries looked at so far. */
  processed: number;
  succeeded: number;
  /** Entries that no longer matched or changed meanwhile (another operator, a concurrent replay). */
  skipped: number;
  failed: number;
}

export interface BulkResult extends BulkProgress {
  /** Of the skipped, those the caller's `refuse` turned down (left as they are, for another way). */
  refused: number;
  /** The first failures, for a report. */
  errors: Array<{ id: string; message: string }>;
}

export interface BulkOptions {
  by: string;
  limit?: number;
  batchSize?: number;
  /** Called after each batch. */
  onProgress?(progress: BulkProgress): void;
  /**
   * Why this caller may not act on `entry` (the dashboard: a destructive type), or
   * undefined: a refused entry is skipped and left as it is.
   */
  refuse?(entry: DeadLetterEntry): string | undefined;
  /** replayMany: called with each entry as its replay was enqueued (its newest replay names the job), to await their outcomes. */
  onReplayed?(entry: DeadLetterEntry): void;
}

export type PurgeOptions = Omit<BulkOptions, 'limit'> & {
  /** Stop after this many entries; default: every match. */
  limit?: number;
};

export type PurgeTenantOptions = Pick<BulkOptions, 'by' | 'batchSize'>;

export interface PruneOptions {
  /** Replayed/discarded entries untouched for longer than this are removed. @defaultValue 30 days */
  olderThanMs?: number;
  /** The time "older" counts from (tests pass one). @defaultValue Date.now() */
  now?: number;
  /** @defaultValue 500 */
  batchSize?: number;
}

const MAX_ERRORS_KEPT = 20;
/** What `act` returns for an entry the caller's `refuse` turned down: counted apart from changed-meanwhile skips. */
const REFUSED = Symbol('refused');

interface BulkDeps {
  store: EntryStore;
  pager: IndexPager;
  redis: RedisClient;
  keys: DlqKeys;
  queues: QueueRegistry;
  logger: Logger;
}

/**
 * The DLQ's bulk operations. Each walks the matching index in batches (a snapshot for
 * several filter dimensions), never loading the whole set, re-checks every entry
 * against the filter as it is now, and reports progress after each batch.
 */
export class DeadLetterBulk {
  constructor(private readonly deps: BulkDeps) {}

  /** Replays matching entries; without a status in the filter, pending ones only. */
  async replayMany(filter: DeadLetterFilter, options: BulkOptions): Promise<BulkResult> {
    const f = this.actionable(filter, 'replay', ['pending', 'replayed']);
    const o = parseOrThrow(bulkOptionsSchema, options, 'bulk options');
    const status = f.status as DeadLetterStatus;
    const result = await this.forEach(f, o.limit, o.batchSize, options.onProgress, async (entry) => {
      if (options.refuse?.(entry)) return REFUSED;
      const replayed = await this.deps.store.replayAs(
        entry.id,
        // A replayed entry is replayed again only if nobody replayed it since we read it.
        { by: o.by, expectedReplays: status === 'replayed' ? entry.replays.length : undefined },
        [status],
      );
      options.onReplayed?.(replayed);
    });
    this.deps.logger.info({ filter: f, by: o.by, ...result, errors: undefined }, 'bulk replay finished');
    return result;
  }

  /** Discards matching entries; without a status in the filter, pending ones only. */
  async discardMany(filter: DeadLetterFilter, options: BulkOptions): Promise<BulkResult> {
    const f = this.actionable(filter, 'discard', ['pending', 'replayed']);
    const o = parseOrThrow(bulkOptionsSchema, options, 'bulk options');
    const result = await this.forEach(f, o.limit, o.batchSize, options.onProgress, (entry) => this.deps.store.discard(entry.id, o.by));
    this.deps.logger.info({ filter: f, by: o.by, ...result, errors: undefined }, 'bulk discard finished');
    return result;
  }

  /**
   * Removes matching entries and their failed jobs, never one being replayed right now:
   * a filter for `replaying` removes only claims taken before `staleClaimsBefore` (their
   * process died), as purgeTenant does. A live claim's replay still has to finish or roll
   * back onto its entry, so removing it could lose the dead letter.
   */
  async purge(filter: DeadLetterFilter, options: PurgeOptions, staleClaimsBefore: number): Promise<number> {
    const f = parseOrThrow(deadLetterFilterSchema, filter, 'dead-letter filter');
    const o = parseOrThrow(bulkOptionsSchema.extend({ limit: z.number().int().min(1).optional() }), options, 'purge options');
    const allowed: DeadLetterStatus[] = f.status ? [f.status] : ['pending', 'replayed', 'discarded'];
    let removed = 0;
    let processed = 0;
    for await (const rows of this.deps.pager.walk(f, o.batchSize)) {
      const room = (o.limit ?? Infinity) - processed;
      const entries = (await this.deps.store.getMany(rows.slice(0, room).map((r) => r.id))).filter((e) => matchesFilter(e, f));
      processed += Math.min(rows.length, room);
      removed += (await this.removeEntries(entries, allowed, f.status === 'replaying' ? staleClaimsBefore : undefined)).length;
      options.onProgress?.({ processed, succeeded: removed, skipped: processed - removed, failed: 0 });
      if (processed >= (o.limit ?? Infinity)) break;
    }
    this.deps.logger.warn({ filter: f, by: o.by, removed }, 'dead letters purged');
    return removed;
  }

  /**
   * Removes a tenant's entries (an organisation's, or only one workspace's when the
   * tenant names it) and their failed jobs, whatever their status: what data-deletion
   * erases. An entry claimed by a replay right now is left to it, unless the claim was
   * taken before `staleClaimsBefore` (its process died); the caller's count then shows it.
   */
  async purgeTenant(tenant: Tenant, options: PurgeTenantOptions, staleClaimsBefore: number): Promise<number> {
    const t = parseOrThrow(tenantSchema, tenant, 'tenant');
    const o = parseOrThrow(bulkOptionsSchema.pick({ by: true, batchSize: true }), options, 'purge options');
    let removed = 0;
    // One index (the organisation's), so the walk pages by cursor and our removals do not shift it.
    for await (const rows of this.deps.pager.walk({ tenant: t.orgId }, o.batchSize)) {
      const entries = (await this.deps.store.getMany(rows.map((r) => r.id))).filter((e) => tenantCovers(t, e.tenant));
      removed += (await this.removeEntries(entries, ['pending', 'replayed', 'discarded'])).length;
      const claimed = entries.filter((e) => e.status === 'replaying');
      if (claimed.length) removed += (await this.removeEntries(claimed, ['replaying'], staleClaimsBefore)).length;
    }
    if (removed) this.deps.logger.warn({ tenant: t, by: o.by, removed }, 'dead letters of a tenant purged');
    return removed;
  }

  /** Retention: replayed and discarded entries untouched for `olderThanMs`; pending ones always stay. */
  async prune(options: PruneOptions = {}): Promise<number> {
    const o = parseOrThrow(
      z.object({
        olderThanMs: z
          .number()
          .int()
          .min(0)
          .default(30 * DAY),
        now: z.number().int().min(0).optional(),
        batchSize: z.number().int().min(1).max(1_000).default(500),
      }),
      options,
      'prune options',
    );
    const cutoff = (o.now ?? Date.now()) - o.olderThanMs;
    let removed = 0;
    for (const status of ['replayed', 'discarded'] as const) {
      // failedAt ≤ updatedAt, so the entries to prune are among those that failed before the cutoff.
      const f: ParsedFilter = { status, to: Math.max(0, cutoff) };
      for await (const rows of this.deps.pager.walk(f, o.batchSize)) {
        const entries = await this.deps.store.getMany(rows.map((r) => r.id));
        removed += (await this.removeEntries(entries, [status], cutoff)).length;
      }
    }
    if (removed) this.deps.logger.info({ removed, cutoff }, 'old dead letters pruned');
    return removed;
  }

  private actionable(filter: DeadLetterFilter, verb: string, statuses: DeadLetterStatus[]): ParsedFilter {
    const f = parseOrThrow(deadLetterFilterSchema, filter, 'dead-letter filter');
    const status = f.status ?? 'pending';
    if (!statuses.includes(status)) {
      throw new AppError('VALIDATION', `Only ${statuses.join(' or ')} entries can be chosen to ${verb}, not ${status}`, { status });
    }
    return { ...f, status };
  }

  private async forEach(
    f: ParsedFilter,
    limit: number,
    batchSize: number,
    onProgress: BulkOptions['onProgress'],
    act: (entry: DeadLetterEntry) => Promise<unknown>,
  ): Promise<BulkResult> {
    const result: BulkResult = { processed: 0, succeeded: 0, skipped: 0, refused: 0, failed: 0, errors: [] };
    for await (const rows of this.deps.pager.walk(f, batchSize)) {
      const ids = rows.slice(0, limit - result.processed).map((r) => r.id);
      const entries = await this.deps.store.getMany(ids);
      result.processed += ids.length;
      result.skipped += ids.length - entries.length;
      const outcomes = await Promise.allSettled(
        entries.map(async (entry) => {
          if (!matchesFilter(entry, f)) return 'skipped';
          return (await act(entry)) === REFUSED ? 'refused' : 'done';
        }),
      );
      outcomes.forEach((o, i) => {
        if (o.status === 'fulfilled') {
          if (o.value === 'done') result.succeeded++;
          else result.skipped++;
          if (o.value === 'refused') result.refused++;
        } else if (isAppError(o.reason) && (o.reason.code === 'CONFLICT' || o.reason.code === 'NOT_FOUND')) {
          result.skipped++;
        } else {
          result.failed++;
          if (result.errors.length < MAX_ERRORS_KEPT) {
            result.errors.push({ id: entries[i].id, message: (o.reason as Error)?.message ?? String(o.reason) });
          }
        }
      });
      onProgress?.({ processed: result.processed, succeeded: result.succeeded, skipped: result.skipped, failed: result.failed });
      if (result.processed >= limit) break;
    }
    return result;
  }

  /**
   * Deletes entries whose status is still allowed, then their jobs if still in a failed
   * set: a purged dead letter must not come back through the reconciler.
   */
  private async removeEntries(entries: DeadLetterEntry[], allowed: DeadLetterStatus[], maxUpdatedAt?: number) {
    const { redis, keys } = this.deps;
    const outcomes = await Promise.all(
      entries.map((e) => REMOVE.run(redis, [keys.entry(e.id), keys.version], [keys.base, e.id, allowed.join(','), maxUpdatedAt ?? ''])),
    );
    const removed = entries.filter((_, i) => Number(outcomes[i]) === 1);
    await Promise.all(removed.map((e) => this.removeFailedJob(e)));
    return removed;
  }

  private async removeFailedJob(entry: DeadLetterEntry): Promise<void> {
    if (!this.deps.queues.jobs.has(entry.queue)) return;
    const queue = this.deps.queues.get(entry.queue);
    try {
      if ((await queue.getJobState(entry.originalJobId)) === 'failed') await queue.remove(entry.originalJobId);
    } catch (err) {
      this.deps.logger.warn({ err, dlqId: entry.id, jobId: entry.originalJobId }, 'could not remove a purged dead letter’s failed job');
    }
  }
}
