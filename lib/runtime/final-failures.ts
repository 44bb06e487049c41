import type { Job } from 'bullmq';

/**
 * The dead letters of final failures, each written once BullMQ has recorded the failure
 * (docs/decisions/0003-dead-letters.md). The processor knows why a job failed for good
 * and prepares its dead letter; the worker's `failed` event, which BullMQ emits only
 * after it moved the job to the failed set, writes it. A failure BullMQ did not record
 * (the job's lock was lost to a Redis restart or a stall, the worker was closing, or
 * BullMQ retried the job after all) leaves no dead letter: the job is still BullMQ's to
 * run, and a dead letter beside it would be a second truth that an operator could replay
 * while the job itself runs again and completes.
 */
export class FinalFailures {
  // Keyed by BullMQ's Job object: the failed event passes the one the processor ran, and
  // a preparation whose failure BullMQ never recorded goes with its job.
  private readonly prepared = new WeakMap<Job, () => Promise<void>>();

  /** The processor: `write` records `job`'s dead letter once BullMQ has recorded the failure. */
  prepare(job: Job, write: () => Promise<void>): void {
    this.prepared.set(job, write);
  }

  /** The worker's `failed` event: the writer prepared for `job`, taken once. */
  take(job: Job): (() => Promise<void>) | undefined {
    const write = this.prepared.get(job);
    this.prepared.delete(job);
    return write;
  }
}
