import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { tenantKey } from '@/lib/jobs/tenant-key';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { quotaSchema, type Quota, type QuotaLimits } from './quota';

/** Per-tenant quota limits. */
export class QuotaStore extends TenantRecordsStore<Quota> {
  constructor(redis: RedisClient, keys: Keyspace) {
    super(redis, keys, {
      name: 'quotas',
      tag: 'quotas',
      schema: quotaSchema,
      score: (q) => q.updatedAt,
    });
  }

  /** Sets (replaces) a tenant's limits; invalid limits are refused and nothing changes. */
  set(tenant: Tenant, limits: QuotaLimits, now = Date.now()): Promise<Quota> {
    return this.records.put({ id: tenantKey(tenant), tenant, limits, updatedAt: now });
  }

  get(tenant: Tenant): Promise<Quota | undefined> {
    return this.records.get(tenantKey(tenant));
  }

  async remove(tenant: Tenant): Promise<boolean> {
    return (await this.records.remove([tenantKey(tenant)])) === 1;
  }

  /** Every quota, or those of one organisation (its own and its workspaces'), in batches. */
  list(orgId?: string): AsyncIterable<Quota> {
    return orgId ? (this.records.exportByTenant({ orgId }) as AsyncIterable<Quota>) : this.records.all();
  }

  count(orgId?: string): Promise<number> {
    return orgId ? this.records.countByTenant({ orgId }) : this.records.countAll();
  }
}
