import 'server-only';
import { z } from 'zod';
import { getBullpen } from './bullpen';

/**
 * A queue named in an action's input: one of the job table's types, or the action is
 * refused as invalid before anything runs. Checked against the table the dashboard was
 * built with, not a list of its own.
 */
export const queueNameSchema = z
  .string()
  .max(64)
  .refine((q) => getBullpen().jobs.has(q), { message: 'Unknown queue' });
