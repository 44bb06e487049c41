import type { Job } from 'bullmq';
import { classifyError } from '../errors/classify';
import { type JobEnvelope, type JobLike, readEnvelope } from '../jobs/envelope';
import type { DeadLetterInput } from './sink';

type FailedJob = Pick<Job, 'id' | 'data'> & Partial<Pick<Job, 'name' | 'timestamp' | 'opts'>>;

/**
 * The one way a failed job becomes a dead-letter record's input, whoever saw the
 * failure: the processor at the final attempt, the worker pool for a stalled job, the
 * reconciler's sweep of the failed set (docs/decisions/0008-one-record-per-failure.md).
 * `envelope` is the job's data already checked as an envelope, when the caller has it;
 * `payloadTooLarge`, what the runtime knows of data it did not parse for its size.
 */
export function deadLetterInput(
  type: string,
  job: FailedJob,
  failure: Pick<DeadLetterInput, 'error' | 'attempts' | 'failedAt' | 'source'>,
  envelope?: JobEnvelope,
  payloadTooLarge?: DeadLetterInput['payloadTooLarge'],
): DeadLetterInput {
  const env = envelope ?? envelopeFrom(job);
  return {
    queue: type,
    jobId: String(job.id),
    jobType: type,
    jobData: env ?? ((job.data ?? {}) as Record<string, unknown>),
    ...failure,
    tenant: env?.tenant,
    ...(payloadTooLarge ? { payloadTooLarge } : {}),
  };
}

/**
 * A job of a failed set as the reconciler reads it (failed-job-reader.ts): BullMQ's
 * fields, with `data` null and `oversized` set when the data was over the limit and
 * stayed in Redis.
 */
export interface FailedJobRecord extends FailedJob {
  failedReason?: string;
  stacktrace: string[];
  attemptsMade: number;
  finishedOn?: number;
  processedOn?: number;
  oversized?: DeadLetterInput['payloadTooLarge'];
}

/** A failed job as the reconciler finds it in the failed set, with only what BullMQ kept of its error. */
export function toDeadLetterInput(type: string, job: FailedJobRecord): DeadLetterInput {
  const stack = job.stacktrace.length ? job.stacktrace[job.stacktrace.length - 1] : undefined;
  const message = job.failedReason || 'failed without a reason';
  // The stack's first line names the error class ("ZodError: ..."), which classifies it.
  const name = stack?.match(/^([A-Za-z_$][\w$]*):/)?.[1];
  const probe = Object.assign(new Error(message), name ? { name } : {});
  return deadLetterInput(
    type,
    job,
    {
      error: { message, stack, errorClass: classifyError(probe).errorClass },
      attempts: job.attemptsMade,
      failedAt: job.finishedOn ?? job.processedOn ?? job.timestamp ?? Date.now(),
      source: 'reconciler',
    },
    undefined,
    job.oversized,
  );
}

/** The envelope, or a plain producer's bare payload wrapped as one, so its dead letter has the payload to replay. */
function envelopeFrom(job: FailedJob): JobEnvelope | undefined {
  const read = readEnvelope(job as JobLike);
  return 'error' in read ? undefined : read.envelope;
}
