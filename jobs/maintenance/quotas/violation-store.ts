import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { quotaViolationSchema, type QuotaViolation } from './quota';

/** Recorded quota violations, one per tenant, metric and hour window. */
export class ViolationStore extends TenantRecordsStore<QuotaViolation> {
  constructor(redis: RedisClient, keys: Keyspace) {
    super(redis, keys, {
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
}
