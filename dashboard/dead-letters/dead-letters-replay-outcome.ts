import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { REPLAY_OUTCOME_WAIT_MS } from '@/lib/dlq/replay-outcomes';
import { ERROR_CLASSES, type ErrorClass } from '@/lib/errors/classify';
const POLL_MS = 100;

const failureSchema = z.object({
  message: z.string(),
  code: z.string().optional(),
  errorClass: z.enum(ERROR_CLASSES).optional(),
  /** What the operator can do about it, in a sentence. */
  advice: z.string(),
});

/**
 * What became of a replay's job within the wait: `completed`; `failed` for good (the
 * dead letter is pending again); `retrying` after a failed first attempt; `waiting`
 * when it had not finished (no worker free, or a slow job): it is enqueued, nothing more.
 */
export const replayOutcomeSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('completed') }),
  z.object({ state: z.literal('failed'), error: failureSchema }),
  z.object({ state: z.literal('retrying'), error: failureSchema, attemptsMade: z.number().int(), attempts: z.number().int() }),
  z.object({ state: z.literal('waiting'), jobState: z.string() }),
]);
export type ReplayOutcome = z.infer<typeof replayOutcomeSchema>;

/** The replay action's result: the replay, and what its job did first. */
export interface ReplayResult {
  id: string;
  jobId: string;
  edited: boolean;
  outcome: ReplayOutcome;
}

/**
 * Waits up to `waitMs` for the first outcome of a replay's job, polling its state (one
 * small Redis script a poll, for a bounded time), so a replay refused at once (an
 * idempotency conflict, a disabled resource: a permanent failure on the first attempt) is
 * reported as refused, never as a success. A final failure's words come from the dead
 * letter the failure re-opened (its error class), or from BullMQ's failed reason while
 * the record is still being written.
 */
export async function awaitReplayOutcome(
  bullpen: Bullpen,
  entry: Pick<DeadLetterEntry, 'id' | 'queue'>,
  jobId: string,
  waitMs = REPLAY_OUTCOME_WAIT_MS,
): Promise<ReplayOutcome> {
  const queue = bullpen.queues.get(entry.queue);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await queue.getJobState(jobId);
    const late = Date.now() >= deadline;
    if (state === 'completed') return { state: 'completed' };
    if (state === 'failed') {
      const failure = (await bullpen.dlq.get(entry.id))?.failures.findLast((f) => f.jobId === jobId);
      if (failure) return { state: 'failed', error: withAdvice(failure.error) };
      if (late) return { state: 'failed', error: withAdvice({ message: (await queue.getJob(jobId))?.failedReason ?? 'failed' }) };
    }
    if (state !== 'failed' && state !== 'unknown') {
      // An attempt failed and the job waits for its next one (delayed for the backoff, or
      // already back in line): the first outcome was a failure. Two fields, not the job.
      const [made, reason] = await bullpen.redis.hmget(queue.toKey(jobId), 'atm', 'failedReason');
      // An attempt that ended between the two reads counts too: read the state again.
      const now = Number(made ?? 0) > 0 ? await queue.getJobState(jobId) : state;
      if (Number(made ?? 0) > 0 && now !== 'completed' && now !== 'failed') {
        const job = await queue.getJob(jobId);
        return {
          state: 'retrying',
          error: {
            message: reason ?? '',
            advice: 'It retries by itself; follow it on its job page. If every attempt fails, the dead letter is pending again.',
          },
          attemptsMade: Number(made),
          attempts: job?.opts.attempts ?? 1,
        };
      }
    }
    if (late) return { state: 'waiting', jobState: state };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** A failure with what to do about it, by its class: the runtime knows no job type, so no type's own remedy. */
function withAdvice(error: { message: string; code?: string; errorClass?: ErrorClass }): z.infer<typeof failureSchema> {
  return { ...error, advice: adviceFor(error.errorClass) };
}

export function adviceFor(errorClass: ErrorClass | undefined): string {
  switch (errorClass) {
    case 'validation':
      return 'The payload does not pass: edit it, then replay it.';
    case 'client':
    case 'permanent':
    case 'conflict':
      return 'A replay as it is fails the same way: fix what the error names first (a disabled or missing resource, a payload the receiver refuses), then replay again.';
    case undefined:
    case 'unknown':
      return 'See the error on the dead letter; replay again once its cause is fixed.';
    default:
      return 'It failed on every attempt: check that the service it calls is back, then replay again.';
  }
}
