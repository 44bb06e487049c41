import 'server-only';
import { z } from 'zod';
import { isQueueRefShape } from '@/dashboard/queues/queue-ref';
import { getBullpen } from '@/dashboard/dashboard-process';

/**
 * A queue named in an action's input: one of the job table's types, or a foreign
 * queue's `<prefix>~<name>`; anything else is refused as invalid before anything runs.
 * A foreign reference is checked again where it is used (dashboard/queues/queue-ref.ts):
 * its prefix must be a configured one and the queue must exist.
 */
export const queueNameSchema = z
  .string()
  .max(200)
  .refine((q) => getBullpen().jobs.has(q) || (q.includes('~') && isQueueRefShape(q)), { message: 'Unknown queue' });
