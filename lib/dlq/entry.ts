import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ERROR_CLASSES } from '../errors/classify';
import { envelopeSchema } from '../jobs/envelope';
import { tenantSchema } from '../jobs/tenant';
import { DEAD_LETTER_STATUSES, deadLetterIdSchema } from './dead-letter-id';

export const DEAD_LETTER_SOURCES = ['runtime', 'reconciler', 'stalled'] as const;

/** Longest error message and stack kept: a dead letter is never refused for a long error. */
export const MAX_ERROR_MESSAGE = 8_000;
export const MAX_ERROR_STACK = 16_000;

/** One replay of an entry: by whom, when, and the job it produced. */
export const replayRecordSchema = z.object({
  at: z.number().int(),
  /** The actor: a dashboard user, `cli:<user>` or `system`. */
  by: z.string().min(1).max(200),
  /** The job the replay enqueued; for a retry from a queue's failed tab, the same job id. */
  newJobId: z.string().min(1),
  /** Whether an operator edited the payload before replaying. */
  edited: z.boolean(),
});
export type ReplayRecord = z.infer<typeof replayRecordSchema>;

/**
 * A payload the dead letter does not hold, only its size and start: the job's data was
 * over BULLPEN_MAX_PAYLOAD_BYTES (docs/dead-letters.md#payloads).
 */
export const payloadTooLargeSchema = z.object({
  /** The JSON's size in bytes. */
  bytes: z.number().int().min(0),
  /** The limit it was over. */
  limit: z.number().int().min(0),
  /** The JSON's first bytes (PAYLOAD_PREVIEW_BYTES): not JSON itself. */
  preview: z.string(),
});
export type PayloadTooLarge = z.infer<typeof payloadTooLargeSchema>;

/** Longest message a failure of the history keeps (the latest failure keeps the full message and stack). */
export const MAX_HISTORY_MESSAGE = 2_000;

/** One final failure of the record's job chain: the original job, a retry of it in place, or a replay. */
export const failureRecordSchema = z.object({
  at: z.number().int(),
  /** The job that failed: the original's id, or the replay's (`replay-<id>-<n>`). */
  jobId: z.string().min(1),
  attempts: z.number().int().min(0),
  error: z.object({
    message: z.string().max(MAX_HISTORY_MESSAGE),
    code: z.string().max(200).optional(),
    errorClass: z.enum(ERROR_CLASSES),
  }),
  source: z.enum(DEAD_LETTER_SOURCES),
});
export type FailureRecord = z.infer<typeof failureRecordSchema>;

/**
 * A dead letter: one final failure of one job chain (the original job plus its retries
 * and replays), docs/decisions/0008-one-record-per-failure.md. Its error, attempts and
 * failedAt are the latest failure's; `failures` keeps every one, oldest first. The base schema; the input and the
 * stored-row variants below are derived from it with pick/omit.
 */
export const deadLetterEntrySchema = z.object({
  /** `dlq-<sha256 prefix of queue and job id>`: the same failed job always has the same id. */
  id: deadLetterIdSchema,
  queue: z.string().min(1),
  originalJobId: z.string().min(1),
  jobType: z.string().min(1),
  /** The job's data as BullMQ stored it: normally the envelope. */
  jobData: z.union([envelopeSchema, z.record(z.string(), z.unknown())]),
  /** The payload the handler received (the envelope's `payload`). Stored once, apart from the rest of jobData. */
  payload: z.unknown(),
  /** Set instead of `payload` (and jobData's payload) when the job's data was over the limit. */
  payloadTooLarge: payloadTooLargeSchema.optional(),
  /**
   * Set by a read of many entries (`list`) instead of `payload` when the payload is longer
   * than the read keeps (LIST_PAYLOAD_BYTES): its size and its first bytes. `get` reads it whole.
   */
  payloadCut: z.object({ bytes: z.number().int().min(0), preview: z.string() }).optional(),
  error: z.object({
    message: z.string().max(MAX_ERROR_MESSAGE),
    stack: z.string().max(MAX_ERROR_STACK).optional(),
    code: z.string().max(200).optional(),
    errorClass: z.enum(ERROR_CLASSES),
  }),
  attempts: z.number().int().min(0),
  failedAt: z.number().int().min(0),
  tenant: tenantSchema.optional(),
  status: z.enum(DEAD_LETTER_STATUSES),
  source: z.enum(DEAD_LETTER_SOURCES),
  replays: z.array(replayRecordSchema),
  failures: z.array(failureRecordSchema).min(1),
  discardedBy: z.string().optional(),
  updatedAt: z.number().int(),
});
export type DeadLetterEntry = z.infer<typeof deadLetterEntrySchema>;

/** What `record` accepts (the runtime's DeadLetterInput): the failure, without the store's bookkeeping. */
export const deadLetterInputSchema = deadLetterEntrySchema
  .pick({
    queue: true,
    jobType: true,
    jobData: true,
    error: true,
    attempts: true,
    failedAt: true,
    tenant: true,
    source: true,
    payloadTooLarge: true,
  })
  .extend({ jobId: z.string().min(1).max(512) });

/**
 * The immutable part of an entry but its payload, stored as one JSON field of its hash;
 * the payload is a field of its own, so jobData is stored without it (entry-codec.ts).
 * An entry written before had `payload` in the doc and in `jobData` both.
 */
export const deadLetterDocSchema = deadLetterEntrySchema.pick({
  jobData: true,
  payload: true,
  error: true,
  tenant: true,
  payloadTooLarge: true,
});
export type DeadLetterDoc = z.infer<typeof deadLetterDocSchema>;

/** The id of the dead letter of job `jobId` of `queue`: deterministic, so writes are idempotent. */
export function deadLetterId(queue: string, jobId: string): string {
  return `dlq-${createHash('sha256').update(`${queue}\n${jobId}`).digest('hex').slice(0, 24)}`;
}

/** The BullMQ job id of the n-th replay of an entry: a double click replays once. */
export function replayJobId(entryId: string, n: number | ''): string {
  return `replay-${entryId}-${n}`;
}

/**
 * The record of a failed job's chain: for a replay's job (its envelope names the record
 * it replays), that record; otherwise the job's own deterministic one.
 */
export function chainRecordId(queue: string, jobId: string, envelope?: { replayOf?: string }): string {
  const replayOf = envelope?.replayOf ?? REPLAY_JOB_ID.exec(jobId)?.[1];
  return replayOf && deadLetterIdSchema.safeParse(replayOf).success ? replayOf : deadLetterId(queue, jobId);
}

/** A replay's job id names the record it replays (`replayJobId`). */
const REPLAY_JOB_ID = /^replay-(dlq-[0-9a-f]{24})-\d+$/;
