import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { TenantRecords } from '../deletion/tenant-records';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';
import { quotaViolationSchema, type QuotaViolation } from './quota';

/** Recorded quota violations, one per tenant, metric and hour window. */
export class ViolationStore implements TenantScopedStore {
  readonly name = 'quota-violations';
  private readonly records: TenantRecords<QuotaViolation>;

  constructor(redis: RedisClient, keys: Keyspace) {
    this.records = new TenantRecords<QuotaViolation>(redis, keys, {
      name: 'quota-violations',
      tag: 'quotas',
      schema: quotaViolationSchema,
      score: (v) => v.window,
    });
  }

  /** Records the violation unless its window already has it; true when it is new. */
  recordOnce(violation: QuotaViolation): Promise<boolean> {
    return this.records.putIfAbsent(violation);
  }

  /** A tenant's violations, oldest first. */
  async list(tenant: Tenant): Promise<QuotaViolation[]> {
    const out: QuotaViolation[] = [];
    for await (const v of this.records.exportByTenant(tenant)) out.push(v as QuotaViolation);
    return out;
  }

  /** Drops up to `limit` violations whose window began before `before`. */
  prune(before: number, limit: number): Promise<number> {
    return this.records.removeScoredBelow(before, limit);
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
