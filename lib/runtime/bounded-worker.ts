import { type Job, type JobJson, Worker, type WorkerOptions } from 'bullmq';
import { bytesOverLimit, previewOf } from '../jobs/payload-limit';

/** A job whose data was over the limit when it was picked up: its size and the start of its JSON. */
export interface OversizedData {
  bytes: number;
  limit: number;
  preview: string;
}

const oversized = new WeakMap<Job, OversizedData>();

/** What a BoundedWorker found when it picked `job` up over the limit; undefined for every other job. */
export function oversizedData(job: Job): OversizedData | undefined {
  return oversized.get(job);
}

/** Where a BoundedWorker keeps the JSON text of a job's data on the job, as BullMQ read it. */
const ENQUEUED_DATA = Symbol('bullpen.enqueuedData');

/**
 * The JSON text of `job`'s data as BullMQ read it from Redis, when a BoundedWorker
 * picked it up: the data as it was enqueued, whatever a handler did since to the objects
 * it was given (the processor hands a payload zod took unchanged to the handler as it is).
 * The job lets go of it: the processor keeps it for the attempt (processor.ts). BullMQ's
 * own maps of running jobs can keep a finished job alive through young collections (see
 * running-attempts.ts), and the text would be copied with it at every one.
 */
export function takeEnqueuedData(job: Job): string | undefined {
  const carrier = job as Job & { [ENQUEUED_DATA]?: string };
  const text = carrier[ENQUEUED_DATA];
  // Set to undefined rather than deleted: a deleted property turns the job into a slower dictionary object.
  if (text !== undefined) carrier[ENQUEUED_DATA] = undefined;
  return text;
}

/**
 * A BullMQ Worker that measures each job's data where it arrives: the JSON text BullMQ
 * read from the job's hash, before it is parsed. Its length settles almost every job
 * without encoding it (payload-limit.ts), so the runtime pays nothing per job for the
 * limit. A job over it is never parsed: its data is null, and `oversizedData` tells
 * the processor, which fails it for good with a dead letter that keeps only a preview.
 */
export class BoundedWorker extends Worker {
  constructor(
    name: string,
    processor: (job: Job) => Promise<unknown>,
    opts: WorkerOptions,
    private readonly maxPayloadBytes: number,
  ) {
    super(name, processor, opts);
  }

  protected override createJob(raw: JobJson, jobId: string): Job {
    const text = raw.data;
    const bytes = typeof text === 'string' ? bytesOverLimit(text, this.maxPayloadBytes) : undefined;
    if (bytes === undefined) {
      const job = super.createJob(raw, jobId);
      // A property rather than a WeakMap entry: kept as long as the job, at no cost to collect.
      if (typeof text === 'string') (job as Job & { [ENQUEUED_DATA]?: string })[ENQUEUED_DATA] = text;
      return job;
    }
    const job = super.createJob({ ...raw, data: 'null' }, jobId);
    oversized.set(job, { bytes, limit: this.maxPayloadBytes, preview: previewOf(text) });
    return job;
  }
}
