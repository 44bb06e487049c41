import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient, RedisPipeline } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import type { TenantScopedStore } from '@/lib/jobs/tenant-scoped-store';

/** What every record kept here has: an id and, for tenant data, its tenant. */
export interface TenantRecord {
  id: string;
  tenant?: Tenant;
}

export interface TenantRecordsOptions<T extends TenantRecord> {
  /** Stable store name: a key segment, the export file name, a deletion report line. */
  name: string;
  /**
   * Hash tag of every key. Stores written in one transaction share a tag, so a Redis
   * Cluster keeps them in one slot and MULTI/EXEC stays legal.
   */
  tag: string;
  schema: z.ZodType<T>;
  /** A record's position in the indexes: export order and "newest" reads. */
  score(record: T): number;
  /** The owning store's own writes, in the same transaction as the record's. */
  onPut?(tx: RedisPipeline, record: T): void;
  onRemove?(tx: RedisPipeline, record: T): void;
  /** Records per round trip in export, deletion and scans. @defaultValue 500 */
  batchSize?: number;
}

/** The index keys a record is listed under. */
export interface RecordIndexKeys {
  all: string;
  org?: string;
  ws?: string;
}

/**
 * JSON records in one Redis hash, listed in sorted-set indexes: every record in `all`,
 * tenant records also in their organisation's and (when they have one) their
 * workspace's index. Counting a tenant is one ZCARD, exporting and deleting it walk
 * its index in batches, so both are exact without scanning other tenants' data.
 *
 * A record's tenant never changes once written: the stores built on this derive ids
 * from it or keep it from the first write.
 */
export class TenantRecords<T extends TenantRecord> implements TenantScopedStore {
  readonly name: string;
  private readonly recKey: string;
  private readonly allKey: string;
  private readonly batch: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly opts: TenantRecordsOptions<T>,
  ) {
    if (!/^[a-z0-9-]+$/.test(opts.name)) throw new Error(`Store name "${opts.name}" must be kebab-case`);
    this.name = opts.name;
    this.recKey = this.key('rec');
    this.allKey = this.key('all');
    this.batch = opts.batchSize ?? 500;
  }

  /** A key of the owning store under the same hash tag, e.g. `key('idle')`. */
  key(...parts: Array<string | number>): string {
    return this.keys.tagged(this.opts.tag, this.name, ...parts);
  }

  indexKeys(record: { tenant?: Tenant }): RecordIndexKeys {
    const t = record.tenant;
    return {
      all: this.allKey,
      org: t ? this.key('org', t.orgId) : undefined,
      ws: t?.workspaceId ? this.key('ws', t.orgId, t.workspaceId) : undefined,
    };
  }

  /** The hash holding the records (for stores' own Lua scripts). */
  get recordsKey(): string {
    return this.recKey;
  }

  /** The index of every record (for stores' own Lua scripts). */
  get allIndexKey(): string {
    return this.allKey;
  }

  /** Validates input as a record; bad input is an AppError naming each problem. */
  parse(input: unknown): T {
    const r = this.opts.schema.safeParse(input);
    if (!r.success) {
      throw new AppError('VALIDATION', `Invalid ${this.name} record: ${z.prettifyError(r.error)}`);
    }
    return r.data;
  }

  /** Adds the writes of one record to a transaction (the record must be valid). */
  stagePut(tx: RedisPipeline, record: T): void {
    const k = this.indexKeys(record);
    const score = this.opts.score(record);
    tx.hset(this.recKey, record.id, JSON.stringify(record));
    tx.zadd(k.all, score, record.id);
    if (k.org) tx.zadd(k.org, score, record.id);
    if (k.ws && record.tenant?.workspaceId) {
      tx.zadd(k.ws, score, record.id);
      tx.sadd(this.key('wsof', record.tenant.orgId), record.tenant.workspaceId);
    }
    this.opts.onPut?.(tx, record);
  }

  stageRemove(tx: RedisPipeline, record: T): void {
    const k = this.indexKeys(record);
    tx.hdel(this.recKey, record.id);
    tx.zrem(k.all, record.id);
    if (k.org) tx.zrem(k.org, record.id);
    if (k.ws) tx.zrem(k.ws, record.id);
    this.opts.onRemove?.(tx, record);
  }

  async put(input: T): Promise<T> {
    const record = this.parse(input);
    const tx = this.redis.multi();
    this.stagePut(tx, record);
    await execAll(tx);
    return record;
  }

  /**
   * Writes the record unless one with its id exists; true when it was written. The
   * index writes (and `also`, the owning store's own) run either way, with NX: harmless
   * for a record whose id, and so score, is derived from its content. `onPut` is not
   * run: a store that needs its own writes passes them as `also`.
   */
  async putIfAbsent(input: T, also?: (tx: RedisPipeline, record: T) => void): Promise<boolean> {
    const record = this.parse(input);
    const tx = this.redis.multi();
    tx.hsetnx(this.recKey, record.id, JSON.stringify(record));
    also?.(tx, record);
    const k = this.indexKeys(record);
    const score = this.opts.score(record);
    tx.zadd(k.all, 'NX', score, record.id);
    if (k.org) tx.zadd(k.org, 'NX', score, record.id);
    if (k.ws && record.tenant?.workspaceId) {
      tx.zadd(k.ws, 'NX', score, record.id);
      tx.sadd(this.key('wsof', record.tenant.orgId), record.tenant.workspaceId);
    }
    const results = await execAll(tx);
    return results[0] === 1;
  }

  async get(id: string): Promise<T | undefined> {
    const raw = await this.redis.hget(this.recKey, id);
    return raw ? (JSON.parse(raw) as T) : undefined;
  }

  async getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    if (ids.length === 0) return [];
    const raws = await this.redis.hmget(this.recKey, ...ids);
    return raws.map((raw) => (raw ? (JSON.parse(raw) as T) : undefined));
  }

  /** Removes the records with these ids; returns how many existed. */
  async remove(ids: readonly string[]): Promise<number> {
    const records = (await this.getMany(ids)).filter((r): r is T => r !== undefined);
    if (records.length === 0) return 0;
    const tx = this.redis.multi();
    for (const r of records) this.stageRemove(tx, r);
    await execAll(tx);
    return records.length;
  }

  async countAll(): Promise<number> {
    return this.redis.zcard(this.allKey);
  }

  /** Every record, oldest first, read in batches. */
  all(): AsyncIterable<T> {
    return this.walk(this.allKey);
  }

  /** The newest `limit` records of a tenant (or of all), oldest first. */
  async newest(limit: number, tenant?: Tenant): Promise<T[]> {
    const index = tenant ? this.tenantIndex(tenant) : this.allKey;
    const pages: T[][] = [];
    // Page by rank from the newest, so no single reply carries `limit` ids.
    for (let start = 0; start < limit; start += this.batch) {
      const ids = await this.redis.zrevrange(index, start, Math.min(start + this.batch, limit) - 1);
      pages.push((await this.getMany(ids)).filter((r): r is T => r !== undefined));
      if (ids.length < this.batch) break;
    }
    return pages.flat().reverse();
  }

  /** Removes up to `limit` records scored below `score` (retention); returns how many. */
  async removeScoredBelow(score: number, limit: number): Promise<number> {
    const ids = await this.redis.zrangebyscore(this.allKey, '-inf', `(${score}`, 'LIMIT', 0, limit);
    if (ids.length === 0) return 0;
    await this.removeOrDrop(this.allKey, ids);
    return ids.length;
  }

  countByTenant(tenant: Tenant): Promise<number> {
    return this.redis.zcard(this.tenantIndex(tenant));
  }

  exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    return this.walk(this.tenantIndex(tenant)) as AsyncIterable<T & Record<string, unknown>>;
  }

  async deleteByTenant(tenant: Tenant): Promise<number> {
    const index = this.tenantIndex(tenant);
    let removed = 0;
    for (;;) {
      // Always the first page: each round removes what it read, so this terminates.
      const ids = await this.redis.zrange(index, 0, this.batch - 1);
      if (ids.length === 0) break;
      removed += await this.removeOrDrop(index, ids);
    }
    const wsOf = this.key('wsof', tenant.orgId);
    if (tenant.workspaceId) {
      await this.redis.srem(wsOf, tenant.workspaceId);
    } else {
      const workspaces = await this.redis.smembers(wsOf);
      const tx = this.redis.multi();
      for (const ws of workspaces) tx.del(this.key('ws', tenant.orgId, ws));
      tx.del(wsOf);
      await execAll(tx);
    }
    return removed;
  }

  private tenantIndex(tenant: Tenant): string {
    return tenant.workspaceId ? this.key('ws', tenant.orgId, tenant.workspaceId) : this.key('org', tenant.orgId);
  }

  /** Removes the records; an index entry without a record is dropped from `index` and `all`. */
  private async removeOrDrop(index: string, ids: string[]): Promise<number> {
    const records = await this.getMany(ids);
    const tx = this.redis.multi();
    let removed = 0;
    records.forEach((r, i) => {
      if (r) {
        this.stageRemove(tx, r);
        removed++;
      } else {
        tx.zrem(index, ids[i]);
        tx.zrem(this.allKey, ids[i]);
      }
    });
    await execAll(tx);
    return removed;
  }

  /**
   * Walks an index by rank in batches. Records written during the walk may be missed
   * or, when earlier ones are removed meanwhile, skipped: a walk is not a snapshot.
   */
  private async *walk(index: string): AsyncIterable<T> {
    for (let start = 0; ; start += this.batch) {
      const ids = await this.redis.zrange(index, start, start + this.batch - 1);
      for (const r of await this.getMany(ids)) if (r) yield r;
      if (ids.length < this.batch) return;
    }
  }
}

/** Runs a MULTI and throws the first command error; returns each command's result. */
export async function execAll(tx: RedisPipeline): Promise<unknown[]> {
  const results = await tx.exec();
  if (!results) throw new Error('Redis transaction was aborted');
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
