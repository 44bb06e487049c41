import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

export interface ErasureReport {
  /** Records removed per store by this run. */
  deleted: Record<string, number>;
  /** Records of the tenant left per store after it: all zero when the erasure is complete. */
  remaining: Record<string, number>;
  complete: boolean;
}

/**
 * Deletes a tenant from every store, then counts what is left in each. Each store's
 * deletion is idempotent, so a second run removes nothing and reports zeros; a store
 * that still counts records (a write that raced the deletion) makes the report
 * incomplete, and the caller fails so that a retry deletes the rest.
 */
export class TenantEraser {
  constructor(private readonly stores: readonly TenantScopedStore[]) {
    const names = stores.map((s) => s.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new Error(`Two tenant stores are named "${dup}"; names must be unique`);
  }

  async erase(
    tenant: Tenant,
    opts: { signal?: AbortSignal; onProgress?(done: number, total: number, store: string): Promise<void> } = {},
  ): Promise<ErasureReport> {
    const deleted: Record<string, number> = {};
    const remaining: Record<string, number> = {};
    const total = this.stores.length * 2;
    let done = 0;
    for (const store of this.stores) {
      opts.signal?.throwIfAborted();
      deleted[store.name] = await store.deleteByTenant(tenant);
      await opts.onProgress?.(++done, total, store.name);
    }
    // Verification runs after every store is done, so it also sees writes that landed meanwhile.
    for (const store of this.stores) {
      opts.signal?.throwIfAborted();
      remaining[store.name] = await store.countByTenant(tenant);
      await opts.onProgress?.(++done, total, store.name);
    }
    return { deleted, remaining, complete: Object.values(remaining).every((n) => n === 0) };
  }
}
