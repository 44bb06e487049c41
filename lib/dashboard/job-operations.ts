import type { Job } from 'bullmq';
import type { Bullpen } from '../bullpen';
import { AppError, isAppError } from '../errors/app-error';
import { envelopeSchema } from '../jobs/envelope';
import { priorityName } from '../jobs/priority';
import { requireQueueName } from './queue-page';
import { findJob } from './find-job';

export type RetryOutcome = 'retried' | 'skipped';

/**
 * Single-job mutations of the dashboard. Each refuses with an AppError that says why
 * (NOT_FOUND, CONFLICT) and changes nothing when it refuses.
 */
export class JobOperations {
  constructor(private readonly bullpen: Bullpen) {}

  /**
   * Retries a failed (or re-runs a completed) job with fresh attempts. A retried
   * failed job's dead letter is marked as retried from the queue, so the DLQ page and
   * the queue's failed tab agree.
   */
  async retry(queueName: string, id: string, by: string): Promise<{ jobId: string; from: 'failed' | 'completed' }> {
    const { type, job } = await this.load(queueName, id);
    const state = await job.getState();
    if (state !== 'failed' && state !== 'completed') {
      throw new AppError('CONFLICT', `Job ${id} is ${state}; only failed or completed jobs can be retried`, { state });
    }
    await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
    if (state === 'failed') await markDeadLetterRetried(this.bullpen, type, job.id!, by);
    return { jobId: job.id!, from: state };
  }

  /** Moves a delayed job to wait now. */
  async promote(queueName: string, id: string): Promise<{ jobId: string }> {
    const { job } = await this.load(queueName, id);
    const state = await job.getState();
    if (state !== 'delayed') throw new AppError('CONFLICT', `Job ${id} is ${state}; only delayed jobs can be promoted`, { state });
    await job.promote();
    return { jobId: job.id! };
  }

  /**
   * Dispatches a new job with the same payload, tenant and priority through the
   * dispatcher (validated against the type's schema again; no idempotency key, or
   * the copy would be deduplicated away).
   */
  async duplicate(queueName: string, id: string): Promise<{ jobId: string; sourceId: string }> {
    const { type, job } = await this.load(queueName, id);
    const env = envelopeSchema.safeParse(job.data);
    if (!env.success) {
      throw new AppError('VALIDATION', `Job ${id} was not enqueued by Bullpen (no envelope); it cannot be duplicated`);
    }
    const priority = priorityName(job.priority);
    const result = await this.bullpen.dispatcher.dispatch(type, env.data.payload as never, {
      ...(env.data.tenant ? { tenant: env.data.tenant } : {}),
      ...(priority ? { priority } : {}),
    });
    return { jobId: result.jobId, sourceId: job.id! };
  }

  /** Removes a job that is not running (an active job holds a lock: CONFLICT). */
  async remove(queueName: string, id: string): Promise<{ jobId: string; state: string }> {
    const { job } = await this.load(queueName, id);
    const state = await job.getState();
    if (state === 'active') throw new AppError('CONFLICT', `Job ${id} is running; wait for it to finish before removing it`);
    try {
      await job.remove();
    } catch (err) {
      throw new AppError('CONFLICT', `Job ${id} could not be removed: ${(err as Error).message}`);
    }
    return { jobId: job.id!, state };
  }

  private async load(queueName: string, id: string): Promise<{ type: string; job: Job }> {
    const type = requireQueueName(this.bullpen, queueName);
    const job = await findJob(this.bullpen.queues.get(type), id);
    if (!job?.id) throw new AppError('NOT_FOUND', `No job ${id} in ${type}`, { queue: type, jobId: id });
    return { type, job };
  }
}

/**
 * Marks the job's dead letter (if it has one) as retried from the queue. A missing
 * entry is normal (the job failed before the DLQ existed, or only transiently); a
 * conflict (a replay is running) is logged, not fatal: the retry itself happened.
 */
export async function markDeadLetterRetried(bullpen: Bullpen, queue: string, jobId: string, by: string): Promise<boolean> {
  try {
    return (await bullpen.dlq.markRetriedFromQueue(queue, jobId, by)) !== undefined;
  } catch (err) {
    if (isAppError(err) && err.code === 'CONFLICT') {
      bullpen.logger.warn({ queue, jobId, err: err.message }, 'dead letter not marked retried: a replay is in progress');
      return false;
    }
    throw err;
  }
}
