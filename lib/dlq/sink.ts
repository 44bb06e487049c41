import type { ErrorClass } from '../errors/classify';
import type { JobEnvelope } from '../jobs/envelope';
import type { Tenant } from '../jobs/tenant';

/** What the runtime knows about a job that failed for good. */
export interface DeadLetterInput {
  queue: string;
  jobId: string;
  jobType: string;
  /** The job's data as BullMQ stored it (the envelope). */
  jobData: JobEnvelope | Record<string, unknown>;
  error: { message: string; stack?: string; code?: string; errorClass: ErrorClass };
  attempts: number;
  failedAt: number;
  tenant?: Tenant;
  /** Set when the job's data was over the limit at pickup: its size and start, never the data. */
  payloadTooLarge?: { bytes: number; limit: number; preview: string };
  /** Where it came from: the runtime at final failure, or the reconciler's sweep. */
  source: 'runtime' | 'reconciler' | 'stalled';
}

/**
 * The seam between the runtime and the dead-letter store: the runtime calls it before
 * a job is acknowledged as failed, and the write is idempotent per (queue, jobId).
 */
export interface DeadLetterSink {
  /**
   * `created` is true when the call produced a new pending dead letter; `reopened`
   * (optional, additive) says it did so by re-opening the entry of a job that was
   * retried from its queue's failed set and failed again.
   */
  record(input: DeadLetterInput): Promise<{ id: string; created: boolean; reopened?: boolean }>;
}
