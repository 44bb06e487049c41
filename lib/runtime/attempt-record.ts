import { z } from 'zod';
import type { RedisClient } from '../redis/connection';
import { LuaCommand } from '../redis/lua-command';
import { LUA } from './lua';

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

/** Appends entries to jobs' records (lib/runtime/lua/attempt-record-append.lua). */
export const APPEND_ATTEMPTS = new LuaCommand('attempt-record-append', LUA['attempt-record-append']);

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

/** The fields of a BullMQ job (its `Job`) that tell its last attempt. */
export interface LastAttemptFields {
  attemptsMade: number;
  processedOn?: number;
  finishedOn?: number;
  /** BullMQ's `pb`: the name of the worker that took the job, the pool's `bullpen:<host>:<pid>`. */
  processedBy?: string;
}

/**
 * The entry of a completed job's last attempt when its record does not hold it. The runtime
 * writes no entry for a job that completed at its first attempt (attempt-log.ts): BullMQ's own
 * fields hold all it would say, when the attempt started (processedOn) and ended (finishedOn)
 * and on which worker (processedBy). Also the last run of a completed job an operator ran again,
 * and a completion whose entry is still waiting for its flush. Undefined when the record's
 * last entry is this completion (it ended after the attempt started) or the job has no times.
 * Give it only a job in the completed state.
 */
export function unrecordedCompletion(record: AttemptRecord, job: LastAttemptFields): AttemptEntry | undefined {
  const { processedOn, finishedOn } = job;
  if (!processedOn || !finishedOn) return undefined;
  const last = record.entries.at(-1);
  if (last?.outcome === 'completed' && last.end >= processedOn) return undefined;
  return {
    attempt: Math.max(1, job.attemptsMade),
    start: processedOn,
    end: finishedOn,
    durationMs: finishedOn - processedOn,
    ...(job.processedBy ? { worker: job.processedBy } : {}),
    outcome: 'completed',
  };
}

/**
 * Before an operator runs a completed job again: its last attempt goes into its record when
 * the record does not hold it, since the retry clears the BullMQ fields it is read from
 * (processedOn, finishedOn, processedBy). Written as the runtime writes entries, only while
 * the job's hash still has the creation time `job` has.
 */
export async function keepCompletion(redis: RedisClient, jobKey: string, job: LastAttemptFields & { timestamp: number }): Promise<void> {
  const entry = unrecordedCompletion(await readAttemptRecord(redis, jobKey), job);
  if (!entry) return;
  await APPEND_ATTEMPTS.run(
    redis,
    [jobKey],
    [ATTEMPT_RECORD_FIELD, ATTEMPT_DROPPED_FIELD, ATTEMPT_RECORD_MAX_ENTRIES, String(job.timestamp), encodeAttempt(entry)],
  );
}
