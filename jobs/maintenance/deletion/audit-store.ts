import type { AuditLog } from '@/lib/audit/audit-log';
import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

/**
 * The audit as a tenant store. Its entries are the operators' record, not tenant data:
 * a deletion keeps them and forgets the ids behind their pseudonyms, so what it
 * counts and deletes are those ids (docs/decisions/0010-audit-outlives-tenants.md).
 */
export class AuditStore implements TenantScopedStore {
  readonly name = 'audit';

  constructor(private readonly audit: AuditLog) {}

  countByTenant(tenant: Tenant): Promise<number> {
    return this.audit.tenantNamesHeld(tenant);
  }

  deleteByTenant(tenant: Tenant): Promise<number> {
    return this.audit.forgetTenant(tenant);
  }

  exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    return this.audit.scan({ tenant });
  }
}
