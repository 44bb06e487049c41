import { z } from 'zod';

const idPart = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

/** Who a job works for. Every record a handler writes carries it. */
export const tenantSchema = z.object({ orgId: idPart, workspaceId: idPart.optional() }).strict();
export type Tenant = z.infer<typeof tenantSchema>;

export const tenantIdPart = idPart;
