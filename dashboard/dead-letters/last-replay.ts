import 'server-only';
import { z } from 'zod';
import type { FailureRecord, ReplayRecord } from '@/lib/dlq/entry';

/** What became of a dead letter's newest replay: its job failed for good (the record is pending again because of it), or its job's state now. */
export const lastReplaySchema = z.object({
  /** 1-based: the replay's number in the history. */
  n: z.number().int(),
  at: z.number().int(),
  by: z.string(),
  newJobId: z.string(),
  edited: z.boolean(),
  /** `failed`: the replay's job failed for good and its failure is the record's error now. */
  outcome: z.enum(['failed', 'completed', 'running', 'waiting', 'gone', 'unknown']),
  /** The failure that ended it, when it failed. */
  failure: z.object({ at: z.number().int(), message: z.string(), code: z.string().optional(), errorClass: z.string() }).optional(),
});
export type LastReplay = z.infer<typeof lastReplaySchema>;

/**
 * The newest replay of a record and what became of it, from the record's own history
 * (its newest failure is that replay's job, failed after the replay) or, otherwise, the
 * replay's job state now. Pure: the entry page says this first, so a success shown
 * beside the replay button never outlives the replay (docs/dashboard-pages.md).
 */
export function lastReplayOf(
  replays: readonly ReplayRecord[],
  failures: readonly FailureRecord[],
  jobState: string | undefined,
): LastReplay | undefined {
  const last = replays[replays.length - 1];
  if (!last) return undefined;
  const base = { n: replays.length, at: last.at, by: last.by, newJobId: last.newJobId, edited: last.edited };
  const failure = failures[failures.length - 1];
  if (failure && failure.jobId === last.newJobId && failure.at >= last.at) {
    const { message, code, errorClass } = failure.error;
    return { ...base, outcome: 'failed', failure: { at: failure.at, message, errorClass, ...(code ? { code } : {}) } };
  }
  return { ...base, outcome: outcomeOfState(jobState) };
}

function outcomeOfState(state: string | undefined): LastReplay['outcome'] {
  switch (state) {
    case 'completed':
      return 'completed';
    case 'active':
      return 'running';
    case 'waiting':
    case 'delayed':
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    case 'gone':
      return 'gone';
    // A replay's job that is failed but whose failure the record does not hold yet: the
    // dead letter is written right after BullMQ records the failure.
    default:
      return 'unknown';
  }
}

/**
 * Which payload the record holds now, in words: once a replay with an edited payload
 * is enqueued, the record's envelope is that edit (what a next replay sends, and what
 * every later job of the chain carried); before any edit, the original job's.
 */
export function payloadSource(
  originalJobId: string,
  replays: readonly ReplayRecord[],
): { jobId: string; replay?: number; edited: boolean } {
  const index = replays.findLastIndex((r) => r.edited);
  return index < 0 ? { jobId: originalJobId, edited: false } : { jobId: replays[index].newJobId, replay: index + 1, edited: true };
}
