import { z } from 'zod';

/** States an admin may clean (active jobs hold locks and are never cleaned from here). */
export const CLEANABLE_STATES = ['completed', 'failed', 'delayed', 'waiting', 'prioritized'] as const;
export const cleanableStateSchema = z.enum(CLEANABLE_STATES);
export type CleanableState = z.infer<typeof cleanableStateSchema>;
