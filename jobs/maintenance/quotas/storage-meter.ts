import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

/**
 * A tenant's storage as the bytes of its records serialised as JSON (what an export of
 * them weighs), summed over the given stores. It reads every record of the tenant, so
 * it costs as much as an export: fine for an hourly check of a tenant that has a
 * `storageBytes` limit, which is the only time it runs.
 */
export function storageMeter(stores: readonly TenantScopedStore[]): (tenant: Tenant) => Promise<number> {
  return async (tenant) => {
    let bytes = 0;
    for (const store of stores) {
      for await (const record of store.exportByTenant(tenant)) bytes += Buffer.byteLength(JSON.stringify(record));
    }
    return bytes;
  };
}
