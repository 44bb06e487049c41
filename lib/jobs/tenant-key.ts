import type { Tenant } from './tenant';

/**
 * A tenant as one string: `org` or `org/workspace`. Org and workspace ids hold no `/`
 * (see `tenantSchema`), so the key splits back unambiguously and sorts a workspace
 * right after its organisation.
 */
export function tenantKey(tenant: Tenant): string {
  return tenant.workspaceId ? `${tenant.orgId}/${tenant.workspaceId}` : tenant.orgId;
}

/**
 * Whether a record's tenant falls under `scope`: the same organisation, and the same
 * workspace when the scope names one (an organisation scope covers all its workspaces).
 */
export function tenantCovers(scope: Tenant, record: Tenant | undefined): boolean {
  if (!record || record.orgId !== scope.orgId) return false;
  return scope.workspaceId === undefined || record.workspaceId === scope.workspaceId;
}
