import { z } from 'zod';

/**
 * One part of a tenant id (an orgId or workspaceId). Tenant ids name folders under the
 * data directory (exports, session archives), so besides its shape a part may not be
 * `.`/`..`, start with a dot, or hold a path separator: it must name exactly one plain
 * folder inside its root (docs/security.md).
 */
const ID_PART = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;
const ID_PART_RULE = '1-128 letters, digits, _ . -, not starting with a dot';

const idPart = z.string().regex(ID_PART, ID_PART_RULE);

/** Who a job works for. Every record a handler writes carries it. */
export const tenantSchema = z.object({ orgId: idPart, workspaceId: idPart.optional() }).strict();
export type Tenant = z.infer<typeof tenantSchema>;

export const tenantIdPart = idPart;

/** Whether `value` is a valid tenant id part (the rule of tenantIdPart, without allocating). */
export function isTenantIdPart(value: unknown): value is string {
  return typeof value === 'string' && ID_PART.test(value);
}

/** The same rule as tenantSchema, without allocating: the runtime checks every job's tenant. */
export function isTenant(value: unknown): value is Tenant {
  if (value === null || typeof value !== 'object') return false;
  const t = value as Record<string, unknown>;
  for (const key in t) if (key !== 'orgId' && key !== 'workspaceId') return false;
  return isTenantIdPart(t.orgId) && (t.workspaceId === undefined || isTenantIdPart(t.workspaceId));
}
