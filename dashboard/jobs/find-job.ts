import 'server-only';
import type { Job, Queue } from 'bullmq';
import { z } from 'zod';

/**
 * Keys BullMQ keeps beside the job hashes under a queue's prefix (`<prefix>:<queue>:meta`,
 * `:events`, ...). A job id is the last part of its hash's key, so asking for "job
 * meta" would read the queue's meta hash as a job.
 */
const QUEUE_KEYS = new Set([
  'id',
  'meta',
  'events',
  'wait',
  'paused',
  'active',
  'delayed',
  'prioritized',
  'completed',
  'failed',
  'stalled',
  'stalled-check',
  'limiter',
  'repeat',
  'marker',
  'pc',
  'metrics',
  'waiting-children',
  'de',
]);

/**
 * A job id as a URL or an action names it: BullMQ's (numbers, our deterministic
 * `idem-…`/`replay-…` ids, a scheduler's `repeat:<id>:<millis>`), never one of the
 * queue's own keys.
 */
export const jobIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .refine((id) => !QUEUE_KEYS.has(id), 'not a job id: that name is one of the queue’s own keys');

/**
 * The job `id` of `queue`, or undefined. Beyond the id rule, what BullMQ reads must be a
 * job: a key of another type (a job's `:logs` list, a stream) or a hash without a job's
 * fields is "no such job", never an error page or someone else's data.
 */
export async function findJob(queue: Queue, id: string): Promise<Job | undefined> {
  if (!jobIdSchema.safeParse(id).success) return undefined;
  let job: Job | undefined;
  try {
    job = await queue.getJob(id);
  } catch (err) {
    if (/WRONGTYPE/.test((err as Error).message)) return undefined;
    throw err;
  }
  if (!job?.id || typeof job.name !== 'string' || !(Number.isFinite(job.timestamp) && job.timestamp > 0)) return undefined;
  return job;
}
