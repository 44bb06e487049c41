import { z } from 'zod';
import { MAX_PAYLOAD_TEXT } from './dead-letters-payload';
import { MAX_ADD_DELAY_MS } from './add-job-form';

/** BullMQ's largest priority (2^21): a job with a higher one is refused by BullMQ itself. */
export const MAX_BULLMQ_PRIORITY = 2_097_152;

/** An empty text field is "not given": the form posts every field, filled or not. */
const blankIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/**
 * "Add a job" on a foreign queue's page: the queue's own job name and data as raw JSON,
 * no schema (the queue is another service's), with BullMQ's own options. Pure: the form
 * checks with it as the operator types, the server again before adding.
 */
export const addRawJobSchema = z
  .object({
    /** The foreign queue's reference, `<prefix>~<name>`. */
    queue: z.string().min(1).max(200),
    /** The job's name, as the queue's workers dispatch on it. */
    name: z.string().trim().min(1, 'Give the job a name').max(128, 'At most 128 characters').regex(/^\S+$/, 'No spaces'),
    /** The data as JSON text, stored as it is. */
    data: z.string().max(MAX_PAYLOAD_TEXT, `The JSON is longer than ${MAX_PAYLOAD_TEXT.toLocaleString('en')} characters`),
    delaySeconds: z.preprocess(
      blankIsUnset,
      z.coerce
        .number()
        .int('A whole number')
        .min(0, 'At least 0')
        .max(MAX_ADD_DELAY_MS / 1000, `At most ${(MAX_ADD_DELAY_MS / 1000).toLocaleString('en')} seconds (one day)`)
        .optional(),
    ),
    /** BullMQ's number: 1 is the most urgent; unset or 0, no priority. */
    priority: z.preprocess(
      blankIsUnset,
      z.coerce.number().int('A whole number').min(0, 'At least 0').max(MAX_BULLMQ_PRIORITY, `At most ${MAX_BULLMQ_PRIORITY}`).optional(),
    ),
    attempts: z.preprocess(blankIsUnset, z.coerce.number().int('A whole number').min(1, 'At least 1').max(100, 'At most 100').optional()),
  })
  .strict();
export type AddRawJobRequest = z.input<typeof addRawJobSchema>;

export interface AddedRawJob {
  jobId: string;
  queue: string;
  name: string;
}
