import { PermanentError } from '@/lib/errors/permanent-error';
import type { Tenant } from '@/lib/jobs/tenant';
import type { MemoryScope } from './memory-store';

/**
 * The memories a job may touch: its tenant, narrowed by the payload's `workspaceId`.
 * Without a tenant a job works on every tenant (an operator's or a schedule's run), but
 * a workspace alone names nothing (workspace ids are unique within an organisation), and
 * a payload may not widen or move the tenant the job was dispatched for. Both are
 * permanent errors: a retry would be refused the same way.
 */
export function memoryScope(tenant: Tenant | undefined, workspaceId: string | undefined): MemoryScope {
  if (!tenant) {
    if (workspaceId) {
      throw new PermanentError('workspaceId needs a tenant: dispatch the job with tenant {orgId}', 'VALIDATION');
    }
    return {};
  }
  if (tenant.workspaceId && workspaceId && workspaceId !== tenant.workspaceId) {
    throw new PermanentError(`The payload's workspaceId "${workspaceId}" is not the job's workspace "${tenant.workspaceId}"`, 'VALIDATION');
  }
  const ws = workspaceId ?? tenant.workspaceId;
  return ws ? { orgId: tenant.orgId, workspaceId: ws } : { orgId: tenant.orgId };
}
