import { z } from 'zod';
import { tenantSchema } from '@/lib/jobs/tenant';

export const sessionIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits, _ . : - only');

/** A user's session: the one base schema; the archive writes exactly this shape. */
export const sessionSchema = z.object({
  id: sessionIdSchema,
  tenant: tenantSchema,
  userId: z.string().min(1).max(200),
  /** What the application keeps in the session; small, JSON only. */
  data: z.record(z.string(), z.unknown()),
  createdAt: z.number().int().nonnegative(),
  /** Last activity; cleanup and archive select on it. */
  lastActiveAt: z.number().int().nonnegative(),
});
export type Session = z.infer<typeof sessionSchema>;
