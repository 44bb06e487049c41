import type { Tenant } from '@/lib/jobs/tenant';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { type TenantRecord, TenantRecords, type TenantRecordsOptions } from './tenant-records';

/**
 * A store whose tenant data is the records it keeps in `TenantRecords`: a tenant's
 * count, export and deletion are those records', written here once instead of in each
 * store. A store whose tenant data reaches further (a second index, files) overrides
 * the one method that must do more.
 */
export abstract class TenantRecordsStore<T extends TenantRecord> implements TenantScopedStore {
  readonly name: string;
  protected readonly records: TenantRecords<T>;

  protected constructor(redis: RedisClient, keys: Keyspace, opts: TenantRecordsOptions<T>) {
    this.records = new TenantRecords<T>(redis, keys, opts);
    this.name = opts.name;
  }

  countByTenant(tenant: Tenant): Promise<number> {
    return this.records.countByTenant(tenant);
  }

  deleteByTenant(tenant: Tenant): Promise<number> {
    return this.records.deleteByTenant(tenant);
  }

  exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    return this.records.exportByTenant(tenant);
  }
}
