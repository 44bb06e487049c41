import { z } from 'zod';

/**
 * The states a queue page lists, in tab order. BullMQ 6 has no `paused` state (see the
 * paused flag). `waiting-children`: a flow's parent waits there until its children are done.
 */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;
export const jobStateSchema = z.enum(JOB_STATES);
export type JobStateName = z.infer<typeof jobStateSchema>;
