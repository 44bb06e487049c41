import { z } from 'zod';
import type { RedisClient } from '../redis/connection';

/**
 * The attempt record: one line per attempt of a job, kept in a field of the job's own
 * hash, so whatever removes the job (BullMQ's retention, a clean, a remove, obliterate:
 * each DELs the hash) removes its record too, and nothing else has to sweep it
 * (docs/architecture.md#the-attempt-record). BullMQ keeps only the last attempt's times
 * and a bare stack per attempt; this is when each attempt ran, on which worker process,
 * how it ended and the backoff BullMQ then applied.
 */

/** The job hash's field holding the record: JSON lines, oldest first. */
export const ATTEMPT_RECORD_FIELD = 'bullpen:attempts';
/** How many entries a trim has dropped from the record (written only when one did). */
export const ATTEMPT_DROPPED_FIELD = 'bullpen:attempts-dropped';
/** Entries a record keeps at most: the first attempt and the latest 24. */
export const ATTEMPT_RECORD_MAX_ENTRIES = 25;
/** Bytes one entry takes at most as JSON; its message is cut to fit. */
export const ATTEMPT_ENTRY_MAX_BYTES = 1_024;
/** Characters of an error message an entry keeps before the byte bound is applied. */
export const ATTEMPT_MESSAGE_CHARS = 300;

export const ATTEMPT_OUTCOMES = ['completed', 'retried', 'failed', 'stalled'] as const;
export type AttemptOutcomeName = (typeof ATTEMPT_OUTCOMES)[number];

export const attemptEntrySchema = z.object({
  /** BullMQ's attempt number (1 for the first; an operator's retry starts over at 1); absent for a lost attempt. */
  attempt: z.number().int().optional(),
  /** Epoch ms; absent for an attempt lost with its worker (the stalled check found it). */
  start: z.number().optional(),
  end: z.number(),
  /** The handler's run time, ms. */
  durationMs: z.number().optional(),
  /** The worker process: `bullpen:<host>:<pid>`, or the pool's name. */
  worker: z.string().optional(),
  /** completed; retried (BullMQ runs it again); failed (for good); stalled (found by the stalled check, not failed by it). */
  outcome: z.enum(ATTEMPT_OUTCOMES),
  /** lib/errors/classify.ts's class of the error; `stalled` for a lost attempt. */
  errorClass: z.string().optional(),
  message: z.string().optional(),
  /** The delay BullMQ applied before the next attempt, ms (0: at once). Only for `retried`. */
  backoffMs: z.number().optional(),
});
export type AttemptEntry = z.infer<typeof attemptEntrySchema>;

export interface AttemptRecord {
  /** Oldest first, by start (or end, for a lost attempt). */
  entries: AttemptEntry[];
  /** Entries between the first and the kept latest that the bound dropped. */
  dropped: number;
}

/**
 * One entry as the line the record stores: at most ATTEMPT_ENTRY_MAX_BYTES of JSON (the
 * message is cut, with an ellipsis, until it fits). JSON.stringify escapes line breaks,
 * so an entry is always one line.
 */
export function encodeAttempt(entry: AttemptEntry): string {
  const e = { ...entry };
  if (e.worker && e.worker.length > 120) e.worker = e.worker.slice(0, 120);
  if (e.errorClass && e.errorClass.length > 40) e.errorClass = e.errorClass.slice(0, 40);
  if (e.message && e.message.length > ATTEMPT_MESSAGE_CHARS) e.message = `${e.message.slice(0, ATTEMPT_MESSAGE_CHARS - 1)}…`;
  let line = JSON.stringify(e);
  if (Buffer.byteLength(line) <= ATTEMPT_ENTRY_MAX_BYTES || !e.message) return line;
  // The longest start of the message that fits (a character is 1 to 6 bytes of JSON): a binary search.
  const message = e.message;
  let [fits, over] = [0, message.length];
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    const size = Buffer.byteLength(JSON.stringify({ ...e, message: `${message.slice(0, mid)}…` }));
    if (size <= ATTEMPT_ENTRY_MAX_BYTES) fits = mid;
    else over = mid;
  }
  line = JSON.stringify({ ...e, message: `${message.slice(0, fits)}…` });
  return line;
}

/** Reads a record's text; a line that is not an entry (edited by hand) is skipped, not fatal. */
export function parseAttemptRecord(text: string | null | undefined, dropped: string | null | undefined): AttemptRecord {
  const entries: AttemptEntry[] = [];
  for (const line of (text ?? '').split('\n')) {
    if (!line) continue;
    try {
      const parsed = attemptEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // not JSON: skipped
    }
  }
  // Two processes may write a job's entries out of order (attempt 1's flush after attempt 2's).
  entries.sort((a, b) => (a.start ?? a.end) - (b.start ?? b.end));
  const n = Number(dropped ?? 0);
  return { entries, dropped: Number.isInteger(n) && n > 0 ? n : 0 };
}

/** The record of the job whose hash is `jobKey` (BullMQ's `<prefix>:<queue>:<id>`); empty when it has none. */
export async function readAttemptRecord(redis: RedisClient, jobKey: string): Promise<AttemptRecord> {
  const [text, dropped] = await redis.hmget(jobKey, ATTEMPT_RECORD_FIELD, ATTEMPT_DROPPED_FIELD);
  return parseAttemptRecord(text, dropped);
}
