import { z } from 'zod';
import { tenantSchema } from './tenant';

/**
 * What BullMQ stores as a job's data: the typed payload plus what the runtime needs
 * around it. Keeping the payload apart means a handler's schema never has to allow
 * for the runtime's own fields.
 */
export const envelopeSchema = z.object({
  payload: z.unknown(),
  tenant: tenantSchema.optional(),
  idempotencyKey: z.string().min(1).max(512).optional(),
  requestId: z.string().min(1).max(128),
  dispatchedAt: z.number().int(),
  /** Set when the job was enqueued by a DLQ replay: the entry it came from. */
  replayOf: z.string().optional(),
  /** Set on a DLQ replay: the id of the job the chain of replays started from. */
  originJobId: z.string().optional(),
  /** Set when a Job Scheduler enqueued it: the schedule's name. */
  schedule: z.string().optional(),
});
export type JobEnvelope = z.infer<typeof envelopeSchema>;
