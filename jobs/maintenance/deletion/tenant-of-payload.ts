import { PermanentError } from '@/lib/errors/permanent-error';
import type { Tenant } from '@/lib/jobs/tenant';

/**
 * The tenant an export or deletion job works on, from its payload. A job dispatched
 * for one organisation may not export or delete another's data: refused, not retried.
 */
export function tenantOfPayload(jobTenant: Tenant | undefined, payload: { orgId: string; workspaceId?: string }): Tenant {
  if (jobTenant && jobTenant.orgId !== payload.orgId) {
    throw new PermanentError(`The job belongs to organisation ${jobTenant.orgId} but its payload names ${payload.orgId}`, 'VALIDATION');
  }
  return payload.workspaceId ? { orgId: payload.orgId, workspaceId: payload.workspaceId } : { orgId: payload.orgId };
}
