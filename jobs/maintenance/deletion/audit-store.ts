import type { AuditLog } from '@/lib/audit/audit-log';
import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

/** The audit stream as a tenant store: its entries tagged with the tenant. */
export class AuditStore implements TenantScopedStore {
  readonly name = 'audit';

  constructor(private readonly audit: AuditLog) {}

  countByTenant(tenant: Tenant): Promise<number> {
    return this.audit.countByTenant(tenant);
  }

  deleteByTenant(tenant: Tenant): Promise<number> {
    return this.audit.deleteByTenant(tenant);
  }

  exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    return this.audit.scan({ tenant });
  }
}
