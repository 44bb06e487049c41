import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import type { VectorStore } from './vector-store';

/**
 * Vectors of every namespace as data-export and data-deletion see them. Vectors stored
 * without a tenant (shared reference data) belong to no tenant and are never touched.
 */
export class VectorTenantStore implements TenantScopedStore {
  readonly name = 'vectors';

  constructor(
    private readonly store: VectorStore,
    /** Ids read per round trip. @defaultValue 500 */
    private readonly batchSize = 500,
  ) {}

  async countByTenant(tenant: Tenant): Promise<number> {
    let total = 0;
    for (const ns of await this.store.namespaces()) total += await this.store.countTenant(ns, tenant);
    return total;
  }

  /** Deletes batch by batch from the start of the tenant's index until it is empty. */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    let removed = 0;
    for (const ns of await this.store.namespaces()) {
      for (;;) {
        const ids = await this.store.tenantIds(ns, tenant, { limit: this.batchSize });
        if (ids.length === 0) break;
        let batch = 0;
        for (const id of ids) if (await this.store.delete(ns, id)) batch++;
        removed += batch;
        // Index entries without a vector cannot be deleted here; stop rather than loop on them.
        if (batch === 0) break;
      }
    }
    return removed;
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for (const ns of await this.store.namespaces()) {
      let after: string | undefined;
      for (;;) {
        const ids = await this.store.tenantIds(ns, tenant, { after, limit: this.batchSize });
        if (ids.length === 0) break;
        for (const v of await this.store.getMany(ns, ids)) {
          if (!v) continue;
          yield {
            namespace: v.namespace,
            id: v.id,
            text: v.text,
            model: v.model,
            dimensions: v.vector.length,
            vector: Array.from(v.vector),
            tenant: v.tenant,
            metadata: v.metadata,
            createdAt: v.createdAt,
            updatedAt: v.updatedAt,
          };
        }
        after = ids[ids.length - 1];
      }
    }
  }
}
