import { AppError } from '@/lib/errors/app-error';
import { tenantSchema, type Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { tenantCovers, tenantKey } from '@/lib/jobs/tenant-key';
import { execAll } from '../../shared/tenant-records';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` (UTC) of a time. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** `count` jobs of a tenant on the UTC day of `at` (epoch ms). */
export interface JobUsage {
  tenant: Tenant;
  count: number;
  at: number;
}

/**
 * Usage counters per tenant: one hash per tenant key holding `jobs:<YYYY-MM-DD>`
 * counters, so an increment is one HINCRBY. An organisation's usage is the sum over the
 * organisation and its workspaces, as a store's count of an organisation covers its
 * workspaces' records.
 */
export class UsageStore implements TenantScopedStore {
  readonly name = 'usage';

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  /** Counts `count` jobs run for the tenant on `at`'s UTC day. */
  async recordJobs(tenant: Tenant, count = 1, at = Date.now()): Promise<void> {
    await this.recordJobsBatch([{ tenant, count, at }]);
  }

  /**
   * Many counters in one round trip (one MULTI): what the runtime's JobUsageRecorder
   * flushes. Every item is checked first, so one bad item refuses the batch unwritten.
   */
  async recordJobsBatch(items: ReadonlyArray<JobUsage>): Promise<void> {
    for (const { tenant, count, at } of items) {
      if (!tenantSchema.safeParse(tenant).success)
        throw new AppError('VALIDATION', 'recordJobs needs a valid tenant {orgId, workspaceId?}');
      if (!Number.isInteger(count) || count < 1) throw new AppError('VALIDATION', `count must be a positive integer, got ${count}`);
      if (!Number.isSafeInteger(at) || at < 0) throw new AppError('VALIDATION', `at must be an epoch time in ms, got ${at}`);
    }
    if (items.length === 0) return;
    const tx = this.redis.multi();
    for (const { tenant, count, at } of items) {
      const key = tenantKey(tenant);
      tx.hincrby(this.hashKey(key), `jobs:${utcDay(at)}`, count).sadd(this.setKey(tenant.orgId), key);
    }
    await execAll(tx);
  }

  /** Jobs of the tenant (an organisation: with its workspaces) on a UTC day. */
  async jobsOn(tenant: Tenant, day: string): Promise<number> {
    let total = 0;
    for (const key of await this.keysOf(tenant)) total += Number((await this.redis.hget(this.hashKey(key), `jobs:${day}`)) ?? 0);
    return total;
  }

  /** Drops day counters older than `keepDays` days before `now`; returns how many. */
  async prune(tenant: Tenant, keepDays: number, now = Date.now()): Promise<number> {
    const oldest = utcDay(now - keepDays * DAY_MS);
    let removed = 0;
    for (const key of await this.keysOf(tenant)) {
      const stale = (await this.redis.hkeys(this.hashKey(key))).filter((f) => f.startsWith('jobs:') && f.slice(5) < oldest);
      if (stale.length) removed += await this.redis.hdel(this.hashKey(key), ...stale);
    }
    return removed;
  }

  async countByTenant(tenant: Tenant): Promise<number> {
    let n = 0;
    for (const key of await this.keysOf(tenant)) n += await this.redis.hlen(this.hashKey(key));
    return n;
  }

  async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    for (const key of (await this.keysOf(tenant)).sort()) {
      const counters = await this.redis.hgetall(this.hashKey(key));
      if (Object.keys(counters).length === 0) continue;
      yield {
        tenant: fromKey(key),
        counters: Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, Number(v)])),
      };
    }
  }

  async deleteByTenant(tenant: Tenant): Promise<number> {
    const keys = await this.keysOf(tenant);
    const removed = await this.countByTenant(tenant);
    if (keys.length) {
      await execAll(
        this.redis
          .multi()
          .del(...keys.map((k) => this.hashKey(k)))
          .srem(this.setKey(tenant.orgId), ...keys),
      );
    }
    return removed;
  }

  private async keysOf(tenant: Tenant): Promise<string[]> {
    const all = await this.redis.smembers(this.setKey(tenant.orgId));
    return all.filter((k) => tenantCovers(tenant, fromKey(k)));
  }

  private hashKey(tenantKeyValue: string): string {
    return this.keys.tagged('quotas', 'usage', tenantKeyValue);
  }

  private setKey(orgId: string): string {
    return this.keys.tagged('quotas', 'usage-tenants', orgId);
  }
}

function fromKey(key: string): Tenant {
  const [orgId, workspaceId] = key.split('/');
  return workspaceId ? { orgId, workspaceId } : { orgId };
}
