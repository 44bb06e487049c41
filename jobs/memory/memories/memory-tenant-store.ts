import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import type { MemoryStore } from './memory-store';

/**
 * Memories as data-export and data-deletion see them. A tenant with a workspace means
 * that workspace's memories; without one, all of the organisation's.
 */
export class MemoryTenantStore implements TenantScopedStore {
  readonly name = 'memories';

  constructor(
    private readonly store: MemoryStore,
    /** Memories deleted per MULTI. @defaultValue 500 */
    private readonly batchSize = 500,
  ) {}

  countByTenant(tenant: Tenant): Promise<number> {
    return this.store.count(tenant);
  }

  /** Deletes from the oldest on, page by page, until the tenant's index is empty. */
  async deleteByTenant(tenant: Tenant): Promise<number> {
    let removed = 0;
    for (;;) {
      const page = await this.store.page(tenant, { limit: this.batchSize });
      if (page.items.length === 0) return removed;
      removed += await this.store.deleteMany(page.items);
    }
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for await (const batch of this.store.batches(tenant, { batchSize: this.batchSize })) {
      for (const memory of batch) yield { ...memory };
    }
  }
}
