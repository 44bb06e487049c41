import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { tenantKey } from '@/lib/jobs/tenant-key';
import { execAll } from '../../shared/tenant-records';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { patternModelSchema, type PatternModel } from './pattern-model';

const TAG = 'patterns';

/** The version a job trains: reserved once per job id, so a retry writes the same version. */
const RESERVE_VERSION = new LuaCommand('pattern-reserve-version', LUA['pattern-reserve-version']);

/**
 * Versioned pattern models per scope (a tenant, or `*` for all) and name. Each training
 * job reserves a version number tied to its job id, so a retried or replayed job writes
 * the version it reserved instead of adding another; the latest is the highest saved.
 */
export class PatternModelStore extends TenantRecordsStore<PatternModel> {
  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
  ) {
    super(redis, keys, {
      name: 'pattern-models',
      tag: TAG,
      schema: patternModelSchema,
      score: (m) => m.trainedAt,
      onPut: (tx, m) => tx.zadd(this.modelKey('versions', m.tenant, m.name), m.version, m.id),
      onRemove: (tx, m) => tx.zrem(this.modelKey('versions', m.tenant, m.name), m.id),
    });
  }

  static scope(tenant: Tenant | undefined): string {
    return tenant ? tenantKey(tenant) : '*';
  }

  static idOf(tenant: Tenant | undefined, name: string, version: number): string {
    return `${PatternModelStore.scope(tenant)}:${name}:v${version}`;
  }

  /** The version `jobId` trains; the same for every attempt of that job. */
  async reserveVersion(tenant: Tenant | undefined, name: string, jobId: string): Promise<number> {
    const seq = this.modelKey('seq', tenant, name);
    const jobs = this.modelKey('jobs', tenant, name);
    // A tenant's model names are listed so deletion finds counters that have no saved version yet.
    const keys = tenant ? [seq, jobs, this.records.key('names', tenant.orgId)] : [seq, jobs];
    return (await RESERVE_VERSION.run(this.redis, keys, [jobId, `${PatternModelStore.scope(tenant)}|${name}`])) as number;
  }

  get(tenant: Tenant | undefined, name: string, version: number): Promise<PatternModel | undefined> {
    return this.records.get(PatternModelStore.idOf(tenant, name, version));
  }

  /** The version a job reserved earlier, if any. */
  async versionOfJob(tenant: Tenant | undefined, name: string, jobId: string): Promise<number | undefined> {
    const v = await this.redis.hget(this.modelKey('jobs', tenant, name), jobId);
    return v === null ? undefined : Number(v);
  }

  /** The highest saved version below `version` (what a job training `version` builds on). */
  async latestBefore(tenant: Tenant | undefined, name: string, version: number): Promise<PatternModel | undefined> {
    const [id] = await this.redis.zrevrangebyscore(this.modelKey('versions', tenant, name), `(${version}`, '-inf', 'LIMIT', 0, 1);
    return id ? this.records.get(id) : undefined;
  }

  async latest(tenant: Tenant | undefined, name: string): Promise<PatternModel | undefined> {
    const [id] = await this.redis.zrevrange(this.modelKey('versions', tenant, name), 0, 0);
    return id ? this.records.get(id) : undefined;
  }

  /** Saved version numbers, oldest first. */
  async versions(tenant: Tenant | undefined, name: string): Promise<number[]> {
    const rows = await this.redis.zrange(this.modelKey('versions', tenant, name), 0, -1, 'WITHSCORES');
    return rows.filter((_, i) => i % 2 === 1).map(Number);
  }

  /** Writes a version (replacing it when a retry saves the same version again). */
  save(model: PatternModel): Promise<PatternModel> {
    return this.records.put(model);
  }

  /** Deletes the tenant's versions, then their version counters and job maps. */
  override async deleteByTenant(tenant: Tenant): Promise<number> {
    const removed = await this.records.deleteByTenant(tenant);
    const namesKey = this.records.key('names', tenant.orgId);
    const prefix = `${tenantKey(tenant)}`;
    for (const entry of await this.redis.smembers(namesKey)) {
      const [scope, name] = entry.split('|');
      if (tenant.workspaceId ? scope !== prefix : scope !== prefix && !scope.startsWith(`${prefix}/`)) continue;
      const keys = (['seq', 'jobs', 'versions'] as const).map((k) => this.records.key(k, scope, name));
      await execAll(
        this.redis
          .multi()
          .del(...keys)
          .srem(namesKey, entry),
      );
    }
    return removed;
  }

  private modelKey(kind: 'seq' | 'jobs' | 'versions', tenant: Tenant | undefined, name: string): string {
    return this.records.key(kind, PatternModelStore.scope(tenant), name);
  }
}
