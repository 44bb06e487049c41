import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { DEAD_LETTER_STATUSES } from '@/lib/dlq/dead-letter-id';
import { DEAD_LETTER_SOURCES, type DeadLetterEntry, failureRecordSchema, payloadTooLargeSchema } from '@/lib/dlq/entry';
import { MAX_PAGE } from '@/lib/dlq/filter';
import { ERROR_CLASSES } from '@/lib/errors/classify';
import { envelopeSchema } from '@/lib/jobs/envelope';
import { tenantSchema } from '@/lib/jobs/tenant';
import { MAX_PAYLOAD_TEXT, payloadToText } from '@/dashboard/client/dead-letters-payload';
import { adviceFor } from './dead-letters-replay-outcome';
import { confirmationAsked } from '@/dashboard/jobs/job-start-rules';
import { type LastReplay, lastReplayOf, lastReplaySchema, payloadSource } from './last-replay';
import { toStoreFilter, withoutPaging, type DeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { pageCountOf } from '@/dashboard/client/pagination';
import { MAX_VALUE_BYTES, truncateText, truncateValue, truncatedValueSchema } from '@/dashboard/jobs/truncate';

/** Longest error message a list row carries; the entry page shows all of it. */
const ROW_MESSAGE_BYTES = 300;
const STACK_BYTES = 16 * 1024;
/**
 * The longest payload the entry page reads whole: past it the JSON's pretty text is past
 * MAX_PAYLOAD_TEXT characters (a character is at most 3 bytes), too long for the editor,
 * and the page shows its first MAX_VALUE_BYTES, cut in Redis.
 */
const DETAIL_PAYLOAD_BYTES = 3 * MAX_PAYLOAD_TEXT;
/** Replays whose job state is looked up (newest first); older ones show their record only. */
const REPLAY_STATES_LOOKED_UP = 20;

const JOB_STATE_WORDS = ['completed', 'failed', 'delayed', 'active', 'waiting', 'waiting-children', 'prioritized', 'gone'] as const;
export const jobStateWordSchema = z.enum(JOB_STATE_WORDS);
export type JobStateWord = z.infer<typeof jobStateWordSchema>;

/** One row of the dead-letters list: small, no payload, a short error. */
export const deadLetterRowSchema = z.object({
  id: z.string(),
  queue: z.string(),
  originalJobId: z.string(),
  jobType: z.string(),
  tenant: tenantSchema.optional(),
  errorClass: z.enum(ERROR_CLASSES),
  message: z.string(),
  status: z.enum(DEAD_LETTER_STATUSES),
  attempts: z.number().int(),
  failedAt: z.number().int(),
  /** Replays so far; a replay of a replayed entry must name this number (expectedReplays). */
  replays: z.number().int(),
  lastReplayAt: z.number().int().optional(),
  /**
   * Set when the entry is pending again because its last replay's job failed for good:
   * the row says so first, and its message is that failure's. From the entry's own
   * history, so the list reads nothing more for it.
   */
  lastReplayFailed: z.object({ jobId: z.string(), at: z.number().int(), edited: z.boolean(), code: z.string().optional() }).optional(),
});
export type DeadLetterRow = z.infer<typeof deadLetterRowSchema>;

export const deadLetterCountsSchema = z.object({
  pending: z.number().int(),
  replaying: z.number().int(),
  replayed: z.number().int(),
  discarded: z.number().int(),
  total: z.number().int(),
});

export const deadLetterListSchema = z.object({
  rows: z.array(deadLetterRowSchema),
  /** Entries matching the filter, all pages. */
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  pageCount: z.number().int(),
  /** Entries per status, whatever the filter: the tabs' numbers. */
  counts: deadLetterCountsSchema,
  /**
   * Entries "replay all that match" would act on: the matches when the filter's status
   * is pending or replayed, the pending matches when it names none, 0 otherwise.
   */
  replayable: z.number().int(),
  /** When the list was read (epoch ms). */
  readAt: z.number().int(),
});
export type DeadLetterList = z.infer<typeof deadLetterListSchema>;

export const replayViewSchema = z.object({
  at: z.number().int(),
  by: z.string(),
  newJobId: z.string(),
  edited: z.boolean(),
  /** The replayed job's state now; `gone` once retention removed it; absent when not looked up. */
  jobState: jobStateWordSchema.optional(),
});

export const deadLetterDetailSchema = deadLetterRowSchema.extend({
  source: z.enum(DEAD_LETTER_SOURCES),
  error: z.object({ message: z.string(), stack: z.string().optional(), code: z.string().optional() }),
  payload: truncatedValueSchema,
  /** Set when the job's data was over BULLPEN_MAX_PAYLOAD_BYTES: only its size and start were kept, so no replay. */
  payloadTooLarge: payloadTooLargeSchema.optional(),
  /** The payload as JSON text for the editor; absent when too large to edit in a browser. */
  payloadText: z.string().optional(),
  /** The envelope around the payload (request id, idempotency key, ...); empty when the job had none. */
  envelope: z.object({
    requestId: z.string().optional(),
    idempotencyKey: z.string().optional(),
    dispatchedAt: z.number().int().optional(),
    replayOf: z.string().optional(),
    schedule: z.string().optional(),
  }),
  /** The original job as BullMQ holds it now: its state, or `gone`. */
  originalJobState: jobStateWordSchema,
  replayHistory: z.array(replayViewSchema),
  /** Every final failure of the job chain, newest first (docs/decisions/0008-one-record-per-failure.md). */
  failureHistory: z.array(failureRecordSchema),
  discardedBy: z.string().optional(),
  updatedAt: z.number().int(),
  /** The newest replay and what became of it (failed: the record is pending again because of it). */
  lastReplay: lastReplaySchema.optional(),
  /** Whose payload the record holds: the original job's, or the newest edited replay's (what a next replay sends). */
  payloadFrom: z.object({ jobId: z.string(), replay: z.number().int().optional(), edited: z.boolean() }),
  /** The job whose failure the record holds now: the original, or a replay or retry of it. */
  latestFailedJobId: z.string(),
  /** The job type is known to this build (its schema validates an edit). */
  knownType: z.boolean(),
  /** A worker in this build runs the type: a replay will be picked up. */
  handledType: z.boolean(),
  /** Set for a type that destroys data: what an admin types to replay it (dashboard/jobs/job-start-rules.ts). */
  confirmation: z.string().optional(),
  /**
   * Set when the entry is pending again because the job of its last replay (or retry from
   * the queue) failed for good: that job, when, and its error. The page says it first.
   */
  lastReplayFailed: z
    .object({
      jobId: z.string(),
      at: z.number().int(),
      edited: z.boolean(),
      error: failureRecordSchema.shape.error,
      advice: z.string(),
    })
    .optional(),
});
export type DeadLetterDetail = z.infer<typeof deadLetterDetailSchema>;

/** Maps a stored entry once into the list's row. */
export function toDeadLetterRow(e: DeadLetterEntry): DeadLetterRow {
  const last = e.replays[e.replays.length - 1];
  const failed = lastReplayFailure(e);
  return {
    id: e.id,
    queue: e.queue,
    originalJobId: e.originalJobId,
    jobType: e.jobType,
    tenant: e.tenant,
    errorClass: e.error.errorClass,
    message: truncateText(e.error.message, ROW_MESSAGE_BYTES).text,
    status: e.status,
    attempts: e.attempts,
    failedAt: e.failedAt,
    replays: e.replays.length,
    lastReplayAt: last?.at,
    ...(failed
      ? {
          lastReplayFailed: {
            jobId: failed.jobId,
            at: failed.at,
            edited: failed.edited,
            ...(failed.error.code ? { code: failed.error.code } : {}),
          },
        }
      : {}),
  };
}

/**
 * One page of the list with its total and the per-status counts. Pages are offsets
 * into the store's indexes (never a scan), so the 100th page costs what the first does.
 */
export async function readDeadLetterList(bullpen: Bullpen, f: DeadLetterFilters, now = Date.now()): Promise<DeadLetterList> {
  const pageSize = Math.min(f.pageSize, MAX_PAGE);
  const filter = toStoreFilter(withoutPaging(f), now);
  const [page, counts, pendingMatches] = await Promise.all([
    // Rows show no payload: none is read (a page of limit-sized letters costs what small ones do).
    bullpen.dlq.list(filter, { limit: pageSize, offset: (f.page - 1) * pageSize }, { payloadBytes: 0 }),
    bullpen.dlq.counts(),
    // Bulk replay without a status acts on pending entries only: count those apart.
    f.status === undefined
      ? bullpen.dlq.list({ ...filter, status: 'pending' }, { limit: 1 }, { payloadBytes: 0 }).then((p) => p.total)
      : undefined,
  ]);
  const replayable = f.status === 'pending' || f.status === 'replayed' ? page.total : (pendingMatches ?? 0);
  return {
    rows: page.entries.map(toDeadLetterRow),
    total: page.total,
    page: f.page,
    pageSize,
    pageCount: pageCountOf(page.total, pageSize),
    counts,
    replayable,
    readAt: now,
  };
}

/** Everything the entry page shows, or null when there is no such entry. */
export async function readDeadLetterDetail(bullpen: Bullpen, id: string): Promise<DeadLetterDetail | null> {
  // A payload too long to edit in a browser is shown by its start: it is not read whole.
  const [entry] = await bullpen.dlq.getMany([id], { payloadBytes: DETAIL_PAYLOAD_BYTES });
  if (!entry) return null;
  const known = bullpen.jobs.has(entry.queue);
  const recent = entry.replays.slice(-REPLAY_STATES_LOOKED_UP);
  const [originalJobState, ...replayStates] = await Promise.all([
    jobState(bullpen, entry.queue, entry.originalJobId),
    ...recent.map((r) => jobState(bullpen, entry.queue, r.newJobId)),
  ]);
  const looked = new Map(recent.map((r, i) => [r, replayStates[i]]));
  const env = envelopeSchema.safeParse(entry.jobData);
  const { payload: _p, tenant: _t, ...envelope } = env.success ? env.data : { payload: undefined, tenant: undefined };
  const text = entry.payloadTooLarge || entry.payloadCut ? '' : payloadToText(entry.payload);
  return {
    ...toDeadLetterRow(entry),
    message: entry.error.message,
    source: entry.source,
    error: {
      message: entry.error.message,
      stack: entry.error.stack ? truncateText(entry.error.stack, STACK_BYTES).text : undefined,
      code: entry.error.code,
    },
    payload: entry.payloadCut
      ? { value: truncateText(entry.payloadCut.preview, MAX_VALUE_BYTES).text, truncated: true, bytes: entry.payloadCut.bytes }
      : truncateValue(entry.payload),
    payloadTooLarge: entry.payloadTooLarge,
    payloadText: !entry.payloadTooLarge && !entry.payloadCut && text.length <= MAX_PAYLOAD_TEXT ? text : undefined,
    // The record's own id as "replay of" would link the page to itself: only another record's is shown.
    envelope: env.success ? { ...envelope, replayOf: env.data.replayOf === entry.id ? undefined : env.data.replayOf } : {},
    originalJobState,
    // Newest first: the question at 3 a.m. is "what happened last".
    replayHistory: [...entry.replays].reverse().map((r) => ({ ...r, jobState: looked.get(r) })),
    ...withLastReplay(entry, looked.get(entry.replays[entry.replays.length - 1])),
    payloadFrom: payloadSource(entry.originalJobId, entry.replays),
    latestFailedJobId: entry.failures[entry.failures.length - 1]?.jobId ?? entry.originalJobId,
    failureHistory: [...entry.failures].reverse(),
    discardedBy: entry.discardedBy,
    updatedAt: entry.updatedAt,
    knownType: bullpen.jobs.has(entry.jobType),
    handledType: known && bullpen.jobs.handled.has(entry.jobType),
    confirmation: confirmationAsked(bullpen.jobs, entry.jobType, entry.tenant, entry.payload),
    lastReplayFailed: lastReplayFailure(entry),
  };
}

/** The failure of the entry's last replay, when that is why it is pending again. */
export function lastReplayFailure(entry: DeadLetterEntry): DeadLetterDetail['lastReplayFailed'] {
  const replay = entry.replays[entry.replays.length - 1];
  const failure = entry.failures[entry.failures.length - 1];
  if (entry.status !== 'pending' || !replay || !failure || failure.jobId !== replay.newJobId || failure.at < replay.at) return undefined;
  return { jobId: failure.jobId, at: failure.at, edited: replay.edited, error: failure.error, advice: adviceFor(failure.error.errorClass) };
}

function withLastReplay(entry: DeadLetterEntry, state: JobStateWord | undefined): { lastReplay?: LastReplay } {
  const last = lastReplayOf(entry.replays, entry.failures, state);
  return last ? { lastReplay: last } : {};
}

/** A job's state in words, `gone` when BullMQ no longer has it (or the queue is not one of ours). */
async function jobState(bullpen: Bullpen, queue: string, jobId: string): Promise<JobStateWord> {
  if (!bullpen.jobs.has(queue)) return 'gone';
  const state = await bullpen.queues.get(queue).getJobState(jobId);
  const parsed = jobStateWordSchema.safeParse(state);
  return parsed.success ? parsed.data : 'gone';
}
