import type { Tenant } from './tenant';

/**
 * A store that holds tenant data. data-export, data-deletion and their verification
 * walk every registered store through this one interface, so a new store cannot be
 * forgotten by deletion: it registers here or the deletion test fails.
 */
export interface TenantScopedStore {
  /** Stable name used in export file names and deletion reports, e.g. `memories`. */
  readonly name: string;
  /** Records of the tenant (a workspace narrows it when given). */
  countByTenant(tenant: Tenant): Promise<number>;
  /** Deletes them in batches; idempotent; returns how many it removed. */
  deleteByTenant(tenant: Tenant): Promise<number>;
  /** Yields them as plain JSON objects, in batches, never all at once. */
  exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>>;
}
