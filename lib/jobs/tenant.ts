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

const ID_PART = /^[A-Za-z0-9_.-]{1,128}$/;

/** The same rule as tenantSchema, without allocating: the runtime checks every job's tenant. */
export function isTenant(value: unknown): value is Tenant {
  if (value === null || typeof value !== 'object') return false;
  const t = value as Record<string, unknown>;
  for (const key in t) if (key !== 'orgId' && key !== 'workspaceId') return false;
  return (
    typeof t.orgId === 'string' &&
    ID_PART.test(t.orgId) &&
    (t.workspaceId === undefined || (typeof t.workspaceId === 'string' && ID_PART.test(t.workspaceId)))
  );
}
