import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { cancelledBy } from '@/lib/errors/cancelled-error';
import { resolveQueue } from '@/dashboard/queues/queue-ref';
import { findJob } from './find-job';

/**
 * How long a cancel waits to see the job stop. A Bullpen worker ends the attempt as
 * soon as the request reaches it (milliseconds), whatever its handler does; inside the
 * action's own bound (lib/redis/guarded-write.ts, 5 s) with room for the audit entry.
 */
export const CANCEL_WAIT_MS = 3_000;
/** How often the job's state is read while waiting: at most CANCEL_WAIT_MS / POLL_MS reads. */
const POLL_MS = 100;

/** A cancel the runtime confirmed (`cancelled`), or one sent that no worker confirmed in time (`unconfirmed`). */
export interface JobCancel {
  jobId: string;
  outcome: 'cancelled' | 'unconfirmed';
  /** Worker processes the request reached. */
  reached: number;
}

/**
 * Cancels a running job of one of the application's queues on behalf of `by`: sends the
 * request to every worker process (lib/runtime/cancel-relay.ts) and waits, at most
 * `waitMs`, for the job to stop. Refuses with CONFLICT, and changes nothing, when the job
 * is not running, or when it finished (or its attempt ended) before the request reached
 * its worker; with UNAVAILABLE when no worker process listens.
 */
export async function cancelJob(bullpen: Bullpen, queueName: string, id: string, by: string, waitMs = CANCEL_WAIT_MS): Promise<JobCancel> {
  const resolved = await resolveQueue(bullpen, queueName);
  if (!resolved.type) {
    throw new AppError(
      'CONFLICT',
      `${resolved.ref} is not one of this application's queues: its workers are not Bullpen's, and a cancel cannot reach them`,
    );
  }
  const queue = resolved.queue;
  const job = await findJob(queue, id);
  if (!job?.id) throw new AppError('NOT_FOUND', `No job ${id} in ${resolved.ref}`, { queue: resolved.ref, jobId: id });
  const state = await job.getState();
  if (state !== 'active') {
    throw new AppError('CONFLICT', `Job ${id} is ${state}, not running: there is nothing to cancel, and nothing changed`, { state });
  }
  const reached = await bullpen.cancels.request({ queue: resolved.type, jobId: id, by });
  if (reached === 0) {
    throw new AppError('UNAVAILABLE', `No worker process listens for cancels, so job ${id} runs on: nothing changed`);
  }
  const result = await stopped(bullpen, queue, id, by, Date.now() + waitMs);
  // Written here rather than by the action: a request that went out is on record, confirmed or not.
  await bullpen.audit.append({
    actor: by,
    action: 'job.cancel',
    target: { kind: 'job', id: `${resolved.ref}/${id}` },
    details: { outcome: result, reached },
  });
  return { jobId: id, outcome: result, reached };
}

/** Reads the job's state until it is no longer active, or until `deadline`. */
async function stopped(
  bullpen: Bullpen,
  queue: Awaited<ReturnType<typeof resolveQueue>>['queue'],
  id: string,
  by: string,
  deadline: number,
): Promise<JobCancel['outcome']> {
  for (;;) {
    const now = await queue.getJobState(id);
    if (now !== 'active') {
      const [failedReason, stacktrace] = await bullpen.redis.hmget(queue.toKey(id), 'failedReason', 'stacktrace');
      const who =
        now === 'failed' ? cancelledBy({ failedReason: failedReason ?? undefined, stacktrace: parseStacks(stacktrace) }) : undefined;
      if (who === by) return 'cancelled';
      throw new AppError('CONFLICT', finishedFirst(id, now, who), { state: now });
    }
    if (Date.now() >= deadline) return 'unconfirmed';
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What happened instead, when the job stopped but not by this cancel. */
function finishedFirst(id: string, state: string, who: string | undefined): string {
  if (who) return `Job ${id} was cancelled by ${who} first: nothing more changed`;
  if (state === 'completed') return `Job ${id} completed before the cancel reached its worker: nothing changed`;
  if (state === 'failed') return `Job ${id} failed on its own before the cancel reached its worker: nothing changed`;
  if (state === 'unknown') return `Job ${id} was removed before the cancel reached its worker: nothing changed`;
  return `Job ${id}'s attempt ended before the cancel reached its worker; it is ${state} now, and nothing changed`;
}

function parseStacks(json: string | null): string[] {
  try {
    const stacks: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(stacks) ? stacks.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}
