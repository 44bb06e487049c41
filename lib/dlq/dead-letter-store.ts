import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Alerter } from '../alerts/alerter';
import { AppError } from '../errors/app-error';
import { envelopeSchema, type JobEnvelope, MAX_IDEMPOTENCY_KEY } from '../jobs/envelope';
import { assertWithinLimit, bytesOverLimit, DEFAULT_MAX_PAYLOAD_BYTES, previewOf } from '../jobs/payload-limit';
import { editedReplayId } from '../jobs/replay-identity';
import { hashRequest } from '../idempotency/request-hash';
import type { QueueRegistry } from '../jobs/queues';
import type { Tenant } from '../jobs/tenant';
import { silentLogger, type Logger } from '../logging/logger';
import { readyClient, type RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { DEAD_LETTER_STATUSES, type DeadLetterStatus, isDeadLetterId } from './dead-letter-id';
import {
  DeadLetterBulk,
  type BulkOptions,
  type BulkResult,
  type PruneOptions,
  type PurgeOptions,
  type PurgeTenantOptions,
} from './bulk-operations';
import { DlqKeys } from './dlq-keys';
import {
  MAX_ERROR_MESSAGE,
  MAX_ERROR_STACK,
  chainRecordId,
  deadLetterInputSchema,
  replayJobId,
  type DeadLetterEntry,
  type FailureRecord,
  type PayloadTooLarge,
  type ReplayRecord,
} from './entry';
import { fromHash, historyError, toDocFields, toHashFields } from './entry-codec';
import {
  deadLetterFilterSchema,
  deadLetterPageSchema,
  parseOrThrow,
  type DeadLetterFilter,
  type DeadLetterPage,
  type DeadLetterPageRequest,
} from './filter';
import { IndexPager } from './index-pager';
import { CLAIM_REPLAY, CLAIM_RETRY, FINISH_REPLAY, READ, RECORD, ROLLBACK_REPLAY, SET_STATUS, UNCLAIM_RETRY } from './scripts';
import { readChainStates } from './chain-states';
import type { ChainState } from './retry-verdict';
import type { DeadLetterInput, DeadLetterSink } from './sink';

export interface DeadLetterStoreOptions {
  /** The producer connection. */
  redis: RedisClient;
  keys: Keyspace;
  /** Where replays are enqueued. */
  queues: QueueRegistry;
  alerter: Alerter;
  /** Pending entries at which `dlq_threshold` is raised (config DLQ_ALERT_THRESHOLD). @defaultValue 100 */
  alertThreshold?: number;
  logger?: Logger;
  /** How long a multi-filter intersection is reused by the following pages. @defaultValue 10000 */
  listCacheTtlMs?: number;
  /** BULLPEN_MAX_PAYLOAD_BYTES: a larger payload is kept as a preview; a larger replay is refused. @defaultValue 512 KiB */
  maxPayloadBytes?: number;
}

const actorSchema = z.string().min(1).max(200);

export const replayOptionsSchema = z
  .object({
    /** Who replays: a dashboard user, `cli:<user>` or `system`. */
    by: actorSchema,
    /** An edited payload; validated against the job type's schema. */
    payload: z.unknown().optional(),
    /**
     * The number of replays the operator saw. Required to replay an entry that was
     * replayed before (a deliberate second replay); a stale number is refused, so a
     * double click or two operators produce one replay.
     */
    expectedReplays: z.number().int().min(0).optional(),
  })
  .strict();
export type ReplayOptions = z.input<typeof replayOptionsSchema>;

/** The longest payload a read of many entries (`list`, `getMany`) carries; longer ones are cut (`payloadCut`). */
export const LIST_PAYLOAD_BYTES = 16 * 1024;

/** A claim older than this belongs to a process that died between claim and enqueue. */
const STALE_CLAIM_MS = 60_000;

/**
 * The dead-letter queue: one hash per failed job plus sorted-set indexes (all, type,
 * tenant, error class, status) scored by failedAt, all under the `{dlq}` hash tag.
 * Every state change is one Lua script, so indexes never disagree with entries and
 * concurrent operators cannot both win.
 */
export class DeadLetterStore implements DeadLetterSink {
  readonly keys: DlqKeys;
  readonly threshold: number;
  readonly maxPayloadBytes: number;
  private readonly pager: IndexPager;
  private readonly bulk: DeadLetterBulk;
  private readonly logger: Logger;

  constructor(private readonly opts: DeadLetterStoreOptions) {
    this.keys = new DlqKeys(opts.keys);
    this.threshold = opts.alertThreshold ?? 100;
    this.maxPayloadBytes = opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    if (!Number.isInteger(this.threshold) || this.threshold < 1) {
      throw new Error(`The DLQ alert threshold must be a positive integer, got ${this.threshold}`);
    }
    this.logger = (opts.logger ?? silentLogger).child({ component: 'dlq' });
    this.pager = new IndexPager(opts.redis, this.keys, { cacheTtlMs: opts.listCacheTtlMs });
    this.bulk = new DeadLetterBulk({
      store: this,
      pager: this.pager,
      redis: opts.redis,
      keys: this.keys,
      queues: opts.queues,
      logger: this.logger,
    });
  }

  private get redis(): RedisClient {
    return this.opts.redis;
  }

  private async ready(): Promise<void> {
    await readyClient(this.opts.redis);
  }

  /**
   * Writes the dead letter of a failed job, once: a second call for the same failure
   * changes nothing and returns `created: false`. One job chain has one record
   * (docs/decisions/0008-one-record-per-failure.md): when the job a replay or a retry
   * from the queue produced fails for good, the chain's record is re-opened as pending
   * (`created: true, reopened: true`), the failure appended to its history.
   */
  async record(raw: DeadLetterInput): Promise<{ id: string; created: boolean; reopened?: boolean }> {
    const input = parseOrThrow(deadLetterInputSchema, clampError(raw), 'dead letter');
    await this.ready();
    const envelope = envelopeSchema.safeParse(input.jobData);
    const id = chainRecordId(input.queue, input.jobId, envelope.success ? envelope.data : undefined);
    const failure: FailureRecord = {
      at: input.failedAt,
      jobId: input.jobId,
      attempts: input.attempts,
      error: historyError(input.error),
      source: input.source,
    };
    const now = Date.now();
    const { payload, payloadText, payloadTooLarge } = this.boundedPayload(
      input,
      envelope.success ? envelope.data.payload : (input.jobData as Record<string, unknown>).payload,
    );
    const fields = toHashFields(
      {
        id,
        queue: input.queue,
        originalJobId: input.jobId,
        jobType: input.jobType,
        jobData: input.jobData,
        payload,
        payloadTooLarge,
        error: input.error,
        attempts: input.attempts,
        failedAt: input.failedAt,
        tenant: input.tenant ?? (envelope.success ? envelope.data.tenant : undefined),
        status: 'pending',
        source: input.source,
        updatedAt: now,
      },
      payloadText,
    );
    const [outcome, , pending, alert] = (await RECORD.run(
      this.redis,
      [this.keys.entry(id), this.keys.version, this.keys.thresholdAlerted, this.keys.byStatus('pending')],
      [this.keys.base, id, this.threshold, JSON.stringify(failure), input.jobId, ...fields],
    )) as [number, string, number, number];
    if (alert === 1) {
      this.opts.alerter.raise({
        reason: 'dlq_threshold',
        type: input.jobType,
        message: `The dead-letter queue holds ${pending} pending entries (threshold ${this.threshold})`,
        fields: { pending, threshold: this.threshold, dlqId: id },
      });
    }
    if (outcome !== 0) this.logger.debug({ dlqId: id, queue: input.queue, jobId: input.jobId, outcome }, 'dead letter written');
    return outcome === 2 ? { id, created: true, reopened: true } : { id, created: outcome === 1 };
  }

  /**
   * The payload a dead letter keeps: whole, serialized once, or when it is over the limit
   * (a failure seen by the reconciler or the stalled check, whose job was read whole) only
   * its size and start. The runtime passes `payloadTooLarge` for a job it never parsed.
   */
  private boundedPayload(
    input: DeadLetterInput,
    payload: unknown,
  ): { payload: unknown; payloadText?: string; payloadTooLarge?: PayloadTooLarge } {
    if (input.payloadTooLarge) return { payload: undefined, payloadTooLarge: input.payloadTooLarge };
    const payloadText = payload === undefined ? undefined : JSON.stringify(payload);
    const bytes = payloadText === undefined ? undefined : bytesOverLimit(payloadText, this.maxPayloadBytes);
    if (payloadText === undefined || bytes === undefined) return { payload, payloadText };
    return { payload: undefined, payloadTooLarge: { bytes, limit: this.maxPayloadBytes, preview: previewOf(payloadText) } };
  }

  async get(id: string): Promise<DeadLetterEntry | undefined> {
    if (!isDeadLetterId(id)) return undefined;
    await this.ready();
    return fromHash(await this.redis.hgetall(this.keys.entry(id)));
  }

  /** The record of one BullMQ job's chain: its own, or for a replay's job the record it replays. */
  async getByJob(queue: string, jobId: string, jobData?: unknown): Promise<DeadLetterEntry | undefined> {
    const envelope = envelopeSchema.safeParse(jobData);
    return this.get(chainRecordId(queue, jobId, envelope.success ? envelope.data : undefined));
  }

  /**
   * Entries by id, in that order; missing ones are left out. A payload longer than
   * `payloadBytes` is not read: the entry has `payloadCut` (its size and first bytes)
   * instead, so a page of limit-sized letters costs what a page of small ones does.
   */
  async getMany(ids: string[], { payloadBytes = LIST_PAYLOAD_BYTES }: { payloadBytes?: number } = {}): Promise<DeadLetterEntry[]> {
    if (ids.length === 0) return [];
    await this.ready();
    const hashes = (await READ.run(
      this.redis,
      ids.map((id) => this.keys.entry(id)),
      [payloadBytes],
    )) as string[][];
    const entries: DeadLetterEntry[] = [];
    for (const flat of hashes) {
      const hash: Record<string, string> = {};
      for (let i = 0; i < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
      const entry = fromHash(hash);
      if (entry) entries.push(entry);
    }
    return entries;
  }

  /**
   * Newest first. One filter dimension reads its index; several share a cached
   * intersection. Payloads longer than `payloadBytes` are cut (`getMany`).
   */
  async list(
    filter: DeadLetterFilter = {},
    page: DeadLetterPageRequest = {},
    read: { payloadBytes?: number } = {},
  ): Promise<DeadLetterPage> {
    const f = parseOrThrow(deadLetterFilterSchema, filter, 'dead-letter filter');
    const p = parseOrThrow(deadLetterPageSchema, page, 'page');
    await this.ready();
    const { rows, total, nextCursor } = await this.pager.page(f, p);
    return {
      entries: await this.getMany(
        rows.map((r) => r.id),
        read,
      ),
      total,
      nextCursor,
    };
  }

  /** Entries of `type` that failed at or after `since` (ms), whatever their status since: O(log n). */
  async countFailedSince(type: string, since: number): Promise<number> {
    await this.ready();
    return this.redis.zcount(this.keys.byType(type), since, '+inf');
  }

  /** Pending entries, O(1): what health and the threshold alert compare. */
  async pendingCount(): Promise<number> {
    await this.ready();
    return this.redis.zcard(this.keys.byStatus('pending'));
  }

  async counts(): Promise<Record<DeadLetterStatus, number> & { total: number }> {
    await this.ready();
    const pipeline = this.redis.pipeline();
    for (const s of DEAD_LETTER_STATUSES) pipeline.zcard(this.keys.byStatus(s));
    const replies = (await pipeline.exec()) ?? [];
    const counts = Object.fromEntries(DEAD_LETTER_STATUSES.map((s, i) => [s, Number(replies[i]?.[1] ?? 0)])) as Record<
      DeadLetterStatus,
      number
    >;
    return { ...counts, total: DEAD_LETTER_STATUSES.reduce((n, s) => n + counts[s], 0) };
  }

  /**
   * Re-enqueues the entry's job with fresh attempts under `replay-<id>-<n>`, keeping its
   * tenant and envelope (with `replayOf`). pending → replaying is atomic, so of two
   * concurrent replays one enqueues and the other gets CONFLICT; if the enqueue fails
   * the entry goes back to its status. An edited payload is validated against the
   * type's schema first: invalid, nothing changes.
   */
  async replay(id: string, options: ReplayOptions): Promise<DeadLetterEntry> {
    return this.replayAs(id, options, ['pending', 'replayed']);
  }

  /**
   * `replay` restricted to entries whose status is one of `allowed`: a bulk replay
   * passes its filter's status, so an entry that changed meanwhile is left alone.
   */
  async replayAs(id: string, options: ReplayOptions, allowed: DeadLetterStatus[]): Promise<DeadLetterEntry> {
    const o = parseOrThrow(replayOptionsSchema, options, 'replay options');
    await this.ready();
    const entry = await this.require(id);
    const jobs = this.opts.queues.jobs;
    if (!jobs.has(entry.jobType)) {
      throw new AppError('VALIDATION', `Dead letter ${id} is of job type "${entry.jobType}", which this build does not know`);
    }
    if (entry.payloadTooLarge) {
      // Only the payload's start was kept: nothing to re-send, and an edit could not be
      // checked against the locked fields of a payload nobody has.
      throw new AppError(
        'VALIDATION',
        `Dead letter ${id}'s payload was ${entry.payloadTooLarge.bytes.toLocaleString('en')} bytes, over the limit of ${entry.payloadTooLarge.limit.toLocaleString('en')}, and only its start was kept: it cannot be replayed; dispatch a new job`,
        { payloadTooLarge: entry.payloadTooLarge.bytes },
      );
    }
    const schema = jobs.get(entry.jobType).schema;
    const current = schema.safeParse(entry.payload);
    let payload = entry.payload;
    if (o.payload !== undefined) {
      const parsed = schema.safeParse(o.payload);
      if (!parsed.success) {
        throw new AppError('VALIDATION', `Invalid ${entry.jobType} payload: ${z.prettifyError(parsed.error)}`, {
          issues: parsed.error.issues,
        });
      }
      // The edit may fix data, never retarget the job: same tenant, same resources.
      // Compared after the schema on both sides, so a default filled in is no change.
      const locked = jobs.lockedFieldEdits(entry.jobType, entry.payload, parsed.data);
      if (locked.length > 0) {
        const issues = locked.map((f) => ({
          path: [f],
          message: `locked: an edit may not change it (dispatch a new job to target another ${f})`,
        }));
        throw new AppError('VALIDATION', `Refused: the edit changes locked field${locked.length > 1 ? 's' : ''} ${locked.join(', ')}`, {
          issues,
          lockedFields: locked,
        });
      }
      payload = parsed.data;
    } else if (!current.success) {
      // One click re-sends the recorded payload as it is: one that cannot pass the type's
      // schema (a plain producer's bad job) would only fail again, so it needs an edit.
      throw new AppError(
        'VALIDATION',
        `Dead letter ${id}'s payload does not pass the ${entry.jobType} schema (${z.prettifyError(current.error).replace(/\s*\n\s*/g, ' ')}); replay it with an edited payload`,
        { issues: current.error.issues, needsEdit: true },
      );
    }
    // An edit that changes nothing is a plain replay: it keeps the original's key.
    const edited = o.payload !== undefined && (!current.success || hashRequest(payload) !== hashRequest(current.data));
    // Refused at once, as a dispatch is, before the claim: an edit may have grown it. The
    // job id the claim will give is the next in the history, of the same length but rarely.
    const expectedId = replayJobId(id, entry.replays.length + 1);
    assertWithinLimit(entry.jobType, replayEnvelope(entry, payload, edited ? expectedId : undefined), this.maxPayloadBytes);
    const now = Date.now();
    const claim = (await CLAIM_REPLAY.run(
      this.redis,
      [this.keys.entry(id), this.keys.version],
      [this.keys.base, id, now, now - STALE_CLAIM_MS, allowed.join(','), o.expectedReplays ?? '', replayJobId(id, '')],
    )) as [number, string | number, number?];
    if (claim[0] === -1) throw new AppError('NOT_FOUND', `No dead letter ${id}`);
    if (claim[0] === 0) {
      const [, status, replays] = claim;
      const why =
        status === 'replayed' && o.expectedReplays === undefined
          ? 'pass expectedReplays to replay it again'
          : status === 'replayed' || status === 'pending'
            ? `someone replayed it meanwhile (expected ${o.expectedReplays} replays)`
            : 'it cannot be replayed now';
      throw new AppError('CONFLICT', `Dead letter ${id} is ${status} with ${replays} replays; ${why}`, { status, replays });
    }
    const n = Number(claim[1]);
    const newJobId = replayJobId(id, n);
    const envelope = replayEnvelope(entry, payload, edited ? newJobId : undefined);
    try {
      await this.opts.queues.get(entry.jobType).add(entry.jobType, envelope, { jobId: newJobId });
    } catch (err) {
      await ROLLBACK_REPLAY.run(this.redis, [this.keys.entry(id), this.keys.version], [this.keys.base, id, n, Date.now()]);
      throw new AppError('UNAVAILABLE', `Could not enqueue the replay of ${id}: ${(err as Error).message}`);
    }
    // The replay happened when it was claimed, before its job existed: a worker can fail
    // the job before this record is written, and "its job failed after the replay" must
    // still hold (lastReplayOf compares the two times).
    const item: ReplayRecord = { at: now, by: o.by, newJobId, edited };
    // After an edit, the next replay (and a retry of this replay's job) sends the edit, never the data it replaced.
    const doc = edited ? toDocFields({ jobData: envelope, error: entry.error, tenant: entry.tenant }, JSON.stringify(payload)) : undefined;
    await FINISH_REPLAY.run(
      this.redis,
      [this.keys.entry(id), this.keys.version],
      [this.keys.base, id, n, item.at, JSON.stringify(item), doc?.doc ?? '', doc?.payload ?? ''],
    );
    this.logger.info({ dlqId: id, jobId: newJobId, by: o.by, edited }, 'dead letter replayed');
    // The replay's own job may have removed its record already: a data-deletion replayed
    // for its tenant purges that tenant's dead letters, this one too, often before this
    // read. The replay happened all the same, and its caller (the dashboard's action, its
    // audit entry) must say so rather than "not found".
    return (await this.get(id)) ?? { ...entry, status: 'replayed', replays: [...entry.replays, item], updatedAt: item.at };
  }

  /** pending|replayed → discarded (kept for the record, never replayed in bulk). Discarding twice is a no-op. */
  async discard(id: string, by: string): Promise<DeadLetterEntry> {
    await this.ready();
    const actor = parseOrThrow(actorSchema, by, 'actor');
    const [ok, status] = (await SET_STATUS.run(
      this.redis,
      [this.keys.entry(id), this.keys.version],
      [this.keys.base, id, 'pending,replayed', 'discarded', Date.now(), '', 'discardedBy', actor],
    )) as [number, string?];
    if (ok === -1) throw new AppError('NOT_FOUND', `No dead letter ${id}`);
    if (ok === 0 && status !== 'discarded') {
      throw new AppError('CONFLICT', `Dead letter ${id} is ${status}; it cannot be discarded now`, { status });
    }
    return this.require(id);
  }

  /**
   * Claims a failed job's record for a retry from its queue's failed set, before the
   * retry: the same step a DLQ replay takes (pending → replayed, a history item naming
   * the same job id), so of a queue retry and a replay of one failure exactly one runs,
   * and the job of a record already replayed or discarded is not run again with its old
   * data. `none`: the job has no record (retry freely); `refused`: the record's status
   * and why. A failure of the retried job after the claim re-opens the record.
   */
  async claimQueueRetry(queue: string, jobId: string, by: string, jobData?: unknown): Promise<QueueRetryClaim> {
    const actor = parseOrThrow(actorSchema, by, 'actor');
    const envelope = envelopeSchema.safeParse(jobData);
    const id = chainRecordId(queue, jobId, envelope.success ? envelope.data : undefined);
    await this.ready();
    const at = Date.now();
    const item: ReplayRecord = { at, by: actor, newJobId: jobId, edited: false };
    const [ok, status, latest] = (await CLAIM_RETRY.run(
      this.redis,
      [this.keys.entry(id), this.keys.version],
      [this.keys.base, id, at, JSON.stringify(item), jobId],
    )) as [number, DeadLetterStatus?, string?];
    if (ok === -1) return { outcome: 'none' };
    if (ok === 1) return { outcome: 'claimed', id, at };
    const reason = latest
      ? `its dead letter was replayed as ${latest}, which failed again; running this job would send the data that replay replaced (retry ${latest}, or replay the dead letter)`
      : refusalReason(status!);
    return { outcome: 'refused', id, status: status!, reason, ...(latest ? { latestJobId: latest } : {}) };
  }

  /**
   * What the record of each failed job says about retrying it from its queue, read in
   * one pipeline (no payloads): the same facts the claim script decides on, for the
   * failed tab's markers and the retry-all preview (lib/dlq/retry-verdict.ts). Jobs
   * without a record are left out.
   */
  async chainStates(queue: string, jobs: readonly { id: string; data?: unknown }[]): Promise<Map<string, ChainState>> {
    await this.ready();
    return readChainStates(this.redis, this.keys, queue, jobs);
  }

  /** Undoes a claim whose retry did not happen (the job was no longer failed, or the retry failed). */
  async unclaimQueueRetry(claim: QueueRetryClaim, jobId: string): Promise<void> {
    if (claim.outcome !== 'claimed') return;
    await UNCLAIM_RETRY.run(
      this.redis,
      [this.keys.entry(claim.id), this.keys.version],
      [this.keys.base, claim.id, Date.now(), claim.at, jobId],
    );
  }

  /** Replays matching entries (default: pending ones) in batches; see bulk-operations.ts. */
  async replayMany(filter: DeadLetterFilter, options: BulkOptions): Promise<BulkResult> {
    await this.ready();
    return this.bulk.replayMany(filter, options);
  }

  /** Discards matching entries (default: pending ones) in batches. */
  async discardMany(filter: DeadLetterFilter, options: BulkOptions): Promise<BulkResult> {
    await this.ready();
    return this.bulk.discardMany(filter, options);
  }

  /**
   * Removes matching entries, their index entries and their jobs still in BullMQ's
   * failed set (so the reconciler cannot bring them back), in batches. An entry in the
   * middle of a replay is left to it unless its claim is stale. An admin action: the
   * caller authorises. Returns how many entries were removed.
   */
  async purge(filter: DeadLetterFilter, options: PurgeOptions): Promise<number> {
    await this.ready();
    return this.bulk.purge(filter, options, Date.now() - STALE_CLAIM_MS);
  }

  /**
   * Removes every entry of a tenant (an organisation, or one workspace of it) and its
   * job still in BullMQ's failed set, whatever the entry's status: data-deletion's part
   * of the DLQ. An entry in the middle of a replay is left to it unless its claim is
   * stale. Idempotent; returns how many entries were removed.
   */
  async purgeTenant(tenant: Tenant, options: PurgeTenantOptions): Promise<number> {
    await this.ready();
    return this.bulk.purgeTenant(tenant, options, Date.now() - STALE_CLAIM_MS);
  }

  /** Retention: removes replayed and discarded entries untouched for `olderThanMs`; never pending ones. */
  async prune(options: PruneOptions = {}): Promise<number> {
    await this.ready();
    return this.bulk.prune(options);
  }

  private async require(id: string): Promise<DeadLetterEntry> {
    const entry = await this.get(id);
    if (!entry) throw new AppError('NOT_FOUND', `No dead letter ${id}`);
    return entry;
  }
}

/**
 * The job a replay enqueues: the entry's envelope with the (edited) payload, marked
 * `replayOf`. An edited payload is a new request (docs/dead-letters.md, "Replay keys"):
 * with `editedReplay` (the replay's job id) the envelope's idempotency key becomes the
 * edit's own, derived from the original key and that id, so a record the original left
 * (a failure with the old request's hash, a completed outcome) neither refuses nor
 * swallows the edit. An unchanged payload keeps the key it was sent with.
 */
function replayEnvelope(entry: DeadLetterEntry, payload: unknown, editedReplay: string | undefined): JobEnvelope {
  const original = envelopeSchema.safeParse(entry.jobData);
  const base: Omit<JobEnvelope, 'payload' | 'dispatchedAt'> = original.success ? original.data : { requestId: randomUUID() };
  const envelope: JobEnvelope = {
    ...base,
    payload,
    tenant: entry.tenant,
    dispatchedAt: Date.now(),
    replayOf: entry.id,
    // Handlers keep their progress under the first job's id, so a replay continues it.
    originJobId: base.originJobId || entry.originalJobId,
  };
  if (!editedReplay) return envelope;
  envelope.editedReplay = editedReplay;
  if (base.idempotencyKey) {
    envelope.idempotencyKey = editedReplayId(base.idempotencyKey, editedReplay, {
      previous: base.editedReplay,
      max: MAX_IDEMPOTENCY_KEY,
    });
  }
  return envelope;
}

/** Long messages and stacks are cut, never refused: a dead letter must always be written. */
function clampError(input: DeadLetterInput): DeadLetterInput {
  const cut = (s: string | undefined, max: number) => (s && s.length > max ? `${s.slice(0, max - 1)}…` : s);
  return {
    ...input,
    error: {
      ...input.error,
      message: cut(input.error.message, MAX_ERROR_MESSAGE) ?? '',
      stack: cut(input.error.stack, MAX_ERROR_STACK),
      code: cut(input.error.code, 200),
    },
  };
}

/** What a claim for a retry from the queue found. */
export type QueueRetryClaim =
  | { outcome: 'none' }
  | { outcome: 'claimed'; id: string; at: number }
  | {
      outcome: 'refused';
      id: string;
      status: DeadLetterStatus;
      reason: string;
      /** Set when the record was replayed as another job that failed again: that job, the one to retry. */
      latestJobId?: string;
    };

/** Why the failed job of a record in `status` is not retried from its queue. */
function refusalReason(status: DeadLetterStatus): string {
  switch (status) {
    case 'replayed':
      return 'its dead letter was already replayed (or retried); running the original again would repeat it with the old data';
    case 'discarded':
      return 'its dead letter was discarded; replay it from the dead letters to run it again';
    case 'replaying':
      return 'its dead letter is being replayed right now';
    default:
      return `its dead letter is ${status}`;
  }
}
