import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { shardImbalance, shardOf } from './shards';
import { decodeVector, encodeVector } from './vector-codec';
import { namespaceKey, vectorNamespaceSchema } from './namespace-key';
import {
  hashText,
  vectorInputSchema,
  type IndexEntry,
  type LogEntry,
  type NamespaceStats,
  type StoredVector,
  type UpsertOutcome,
  type VectorInput,
} from './vector-record';
import { DELETE, MOVE, NEW_GENERATION, UPSERT } from './vector-scripts';

export { vectorNamespaceSchema };
export type { IndexEntry, LogEntry, NamespaceStats, StoredVector, UpsertOutcome, VectorInput } from './vector-record';
export { hashText, vectorInputSchema } from './vector-record';

export interface VectorStoreOptions {
  /**
   * Shards of a new namespace; fixed once the namespace exists.
   * @defaultValue 4
   */
  defaultShards?: number;
}

export const RUN_RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1_000;

/**
 * Vectors by namespace, durable in Redis. A vector is a hash holding its float32 bytes,
 * text, model, tenant and metadata, plus a numeric label (its key in the in-memory ANN
 * graphs, from a per-namespace counter) and a shard. Sorted sets index it by label,
 * shard and tenant; a capped stream logs every change for the in-memory indexes
 * (see VectorIndex). All keys of a namespace share one hash tag.
 */
export class VectorStore {
  private readonly defaultShards: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    opts: VectorStoreOptions = {},
  ) {
    this.defaultShards = opts.defaultShards ?? 4;
    if (!Number.isInteger(this.defaultShards) || this.defaultShards < 1 || this.defaultShards > 64) {
      throw new Error(`defaultShards must be an integer from 1 to 64, got ${opts.defaultShards}`);
    }
  }

  /**
   * Inserts or replaces vectors. A vector whose text and model are unchanged is left as
   * it is ("unchanged"), which makes re-running an embedding job a no-op. Refused with
   * VALIDATION when the namespace holds another model (reindex it first) or the id
   * belongs to another tenant.
   */
  async upsertMany(namespace: string, inputs: readonly VectorInput[], now = Date.now()): Promise<UpsertOutcome[]> {
    const ns = this.ns(namespace);
    if (inputs.length === 0) return [];
    const parsed = inputs.map((i) => parse(vectorInputSchema, i, 'vector'));
    const shards = Number((await this.redis.hget(this.key(ns, 'meta'), 'shards')) ?? this.defaultShards);
    await this.redis.sadd(this.namespacesKey(), ns);
    UPSERT.define(this.redis);
    const pipeline = this.redis.pipeline();
    for (const v of parsed) {
      const shard = shardOf(v.id, shards);
      const textHash = hashText(v.text);
      const fields: Array<string | Buffer> = [
        'id',
        v.id,
        'vec',
        encodeVector(v.vector),
        'model',
        v.model,
        'dims',
        String(v.vector.length),
        'text',
        v.text,
        'textHash',
        textHash,
        'orgId',
        v.tenant?.orgId ?? '',
        'workspaceId',
        v.tenant?.workspaceId ?? '',
        'metadata',
        JSON.stringify(v.metadata),
        'updatedAt',
        String(now),
      ];
      UPSERT.queue(
        pipeline,
        [
          this.key(ns, 'meta'),
          this.key(ns, 'labels'),
          this.key(ns, 'log'),
          this.vectorKey(ns, v.id),
          this.key(ns, 'shard', shard),
          ...this.tenantKeys(ns, v.tenant),
        ],
        [
          v.id,
          v.model,
          String(v.vector.length),
          textHash,
          String(shard),
          String(shards),
          v.tenant?.orgId ?? '',
          v.tenant?.workspaceId ?? '',
          String(now),
          ...fields,
        ],
      );
    }
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, res], i) => {
      if (err) {
        const msg = err.message.replace(/^(ERR |MODEL |TENANT )/, '');
        throw new AppError('VALIDATION', `Vector "${parsed[i].id}" refused by namespace "${ns}": ${msg}`, {
          namespace: ns,
          id: parsed[i].id,
        });
      }
      const status = (res as [number, number])[0];
      return status === 0 ? 'unchanged' : status === 1 ? 'added' : 'replaced';
    });
  }

  async upsert(namespace: string, input: VectorInput, now = Date.now()): Promise<UpsertOutcome> {
    return (await this.upsertMany(namespace, [input], now))[0];
  }

  async get(namespace: string, id: string): Promise<StoredVector | undefined> {
    return (await this.getMany(namespace, [id]))[0];
  }

  async getMany(namespace: string, ids: readonly string[]): Promise<Array<StoredVector | undefined>> {
    const ns = this.ns(namespace);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetallBuffer(this.vectorKey(ns, id));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, h]) => {
      if (err) throw err;
      return toStored(ns, h as Record<string, Buffer>);
    });
  }

  /** Model and text hash of each id (undefined when absent): enough to skip unchanged work. */
  async fingerprints(namespace: string, ids: readonly string[]): Promise<Array<{ model: string; textHash: string } | undefined>> {
    const ns = this.ns(namespace);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.vectorKey(ns, id), 'model', 'textHash');
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, r]) => {
      if (err) throw err;
      const [model, textHash] = r as Array<string | null>;
      return model && textHash ? { model, textHash } : undefined;
    });
  }

  /** Deletes a vector and its index entries; false when it did not exist. */
  async delete(namespace: string, id: string): Promise<boolean> {
    const ns = this.ns(namespace);
    // A rebalance may move the vector between our read and the script: read again then.
    for (let tries = 0; tries < 5; tries++) {
      const [shard, orgId, workspaceId] = await this.redis.hmget(this.vectorKey(ns, id), 'shard', 'orgId', 'workspaceId');
      if (shard === null) return false;
      const tenant = orgId ? { orgId, workspaceId: workspaceId || undefined } : undefined;
      const tenantKeys = this.tenantKeys(ns, tenant);
      const r = await DELETE.run(
        this.redis,
        [
          this.key(ns, 'meta'),
          this.key(ns, 'labels'),
          this.key(ns, 'log'),
          this.vectorKey(ns, id),
          this.key(ns, 'shard', shard),
          ...tenantKeys,
        ],
        [id, shard],
      );
      if (r !== -1) return r === 1;
    }
    throw new AppError('CONFLICT', `Vector "${id}" kept moving between shards; try again`, { namespace: ns, id });
  }

  async stats(namespace: string): Promise<NamespaceStats> {
    const ns = this.ns(namespace);
    const meta = await this.redis.hgetall(this.key(ns, 'meta'));
    const shards = Number(meta.shards ?? this.defaultShards);
    const pipeline = this.redis.pipeline().zcard(this.key(ns, 'labels'));
    for (let s = 0; s < shards; s++) pipeline.zcard(this.key(ns, 'shard', s));
    const counts = ((await pipeline.exec()) ?? []).map(([err, n]) => {
      if (err) throw err;
      return Number(n);
    });
    const [live, ...shardSizes] = counts;
    const deleted = Number(meta.deleted ?? 0);
    return {
      namespace: ns,
      model: meta.model || undefined,
      dimensions: meta.dimensions ? Number(meta.dimensions) : undefined,
      shards,
      live,
      deleted,
      deletedRatio: live + deleted === 0 ? 0 : deleted / (live + deleted),
      shardSizes,
      imbalance: shardImbalance(shardSizes),
      generation: Number(meta.generation ?? 0),
      seq: Number(meta.seq ?? 0),
    };
  }

  /** Where the namespace's index generation and change log stand: one cheap read. */
  async position(namespace: string): Promise<{ generation: number; seq: number }> {
    const [generation, seq] = await this.redis.hmget(this.key(this.ns(namespace), 'meta'), 'generation', 'seq');
    return { generation: Number(generation ?? 0), seq: Number(seq ?? 0) };
  }

  /** Every namespace that ever held a vector, sorted. */
  async namespaces(): Promise<string[]> {
    return (await this.redis.smembers(this.namespacesKey())).sort();
  }

  /** Index entries with labels above `afterLabel`, in label order: how an index loads. */
  async indexEntries(namespace: string, afterLabel: number, limit: number): Promise<IndexEntry[]> {
    const ns = this.ns(namespace);
    const ids = await this.redis.zrangebyscore(this.key(ns, 'labels'), `(${afterLabel}`, '+inf', 'LIMIT', 0, limit);
    return this.indexEntriesOf(ns, ids);
  }

  /** The current index entry of each id; absent ids are left out. */
  async indexEntriesOf(namespace: string, ids: readonly string[]): Promise<IndexEntry[]> {
    const ns = this.ns(namespace);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmgetBuffer(this.vectorKey(ns, id), 'label', 'shard', 'model', 'vec', 'orgId', 'workspaceId');
    const results = (await pipeline.exec()) ?? [];
    const out: IndexEntry[] = [];
    results.forEach(([err, r], i) => {
      if (err) throw err;
      const [label, shard, model, vec, orgId, workspaceId] = r as Array<Buffer | null>;
      if (!label || !shard || !model || !vec) return;
      out.push({
        id: ids[i],
        label: Number(label.toString()),
        shard: Number(shard.toString()),
        model: model.toString(),
        vector: decodeVector(vec),
        orgId: orgId?.length ? orgId.toString() : undefined,
        workspaceId: workspaceId?.length ? workspaceId.toString() : undefined,
      });
    });
    return out;
  }

  /** Ids with labels above `afterLabel`, in label order, with their labels. */
  async idsByLabel(namespace: string, afterLabel: number, limit: number): Promise<Array<{ id: string; label: number }>> {
    const ns = this.ns(namespace);
    const flat = await this.redis.zrangebyscore(this.key(ns, 'labels'), `(${afterLabel}`, '+inf', 'WITHSCORES', 'LIMIT', 0, limit);
    const out: Array<{ id: string; label: number }> = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i], label: Number(flat[i + 1]) });
    return out;
  }

  /** Change-log entries after `afterSeq`, oldest first. */
  async readLog(namespace: string, afterSeq: number, count = 1_000): Promise<LogEntry[]> {
    const ns = this.ns(namespace);
    const raw = (await this.redis.xrange(this.key(ns, 'log'), `${afterSeq + 1}-0`, '+', 'COUNT', count)) as Array<[string, string[]]>;
    return raw.map(([streamId, kv]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < kv.length; i += 2) f[kv[i]] = kv[i + 1];
      return { seq: Number(streamId.split('-')[0]), op: f.op as 'add' | 'del', id: f.id, label: Number(f.label), shard: Number(f.shard) };
    });
  }

  /**
   * Starts a new index generation (every process rebuilds its graphs; tombstones reset),
   * optionally switching the namespace to a new model. Returns the generation.
   */
  async newGeneration(namespace: string, opts: { model?: string } = {}, now = Date.now()): Promise<number> {
    const ns = this.ns(namespace);
    await this.redis.sadd(this.namespacesKey(), ns);
    return Number(await NEW_GENERATION.run(this.redis, [this.key(ns, 'meta')], [String(now), opts.model ?? '']));
  }

  /** The shard's ids from the top of its sorted order: the ones a rebalance moves first. */
  async shardTail(namespace: string, shard: number, count: number): Promise<string[]> {
    const ns = this.ns(namespace);
    return this.redis.zrange(this.key(ns, 'shard', shard), '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, count);
  }

  /**
   * Moves these ids from one shard to another and adds the number moved to the run
   * record's field `counter`, atomically; ids no longer in `from` are skipped.
   */
  async move(
    namespace: string,
    runId: string,
    counter: string,
    move: { from: number; to: number; ids: readonly string[] },
  ): Promise<number> {
    const ns = this.ns(namespace);
    if (move.ids.length === 0) return 0;
    return Number(
      await MOVE.run(
        this.redis,
        [
          this.key(ns, 'run', runId),
          this.key(ns, 'shard', move.from),
          this.key(ns, 'shard', move.to),
          ...move.ids.map((id) => this.vectorKey(ns, id)),
        ],
        [String(move.from), String(move.to), counter, String(RUN_RECORD_TTL_MS), ...move.ids],
      ),
    );
  }

  /** Ids of a tenant's vectors (a workspace narrows it) after `after`, sorted. */
  async tenantIds(namespace: string, tenant: Tenant, opts: { after?: string; limit?: number } = {}): Promise<string[]> {
    const ns = this.ns(namespace);
    const min = opts.after !== undefined ? `(${opts.after}` : '-';
    return this.redis.zrange(this.tenantKey(ns, tenant), min, '+', 'BYLEX', 'LIMIT', 0, opts.limit ?? 500);
  }

  async countTenant(namespace: string, tenant: Tenant): Promise<number> {
    return this.redis.zcard(this.tenantKey(this.ns(namespace), tenant));
  }

  /** A job run's record in this namespace (cursor, plan, result; see jobRunId); empty when it never ran. */
  async getRun(namespace: string, runId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key(this.ns(namespace), 'run', runId));
  }

  async putRun(namespace: string, runId: string, fields: Record<string, string | number>): Promise<void> {
    const key = this.key(this.ns(namespace), 'run', runId);
    await this.redis.multi().hset(key, fields).pexpire(key, RUN_RECORD_TTL_MS).exec();
  }

  private ns(namespace: string): string {
    return parse(vectorNamespaceSchema, namespace, 'vector namespace');
  }

  private key(ns: string, ...parts: Array<string | number>): string {
    return namespaceKey(this.keys, ns, ...parts);
  }

  private vectorKey(ns: string, id: string): string {
    return this.key(ns, 'v', id);
  }

  private namespacesKey(): string {
    return this.keys.tagged('vectors', 'namespaces');
  }

  private tenantKey(ns: string, tenant: Tenant): string {
    return tenant.workspaceId ? this.key(ns, 'ws', tenant.orgId, tenant.workspaceId) : this.key(ns, 'org', tenant.orgId);
  }

  /** The organisation's index and, with a workspace, the workspace's. */
  private tenantKeys(ns: string, tenant: Tenant | undefined): string[] {
    if (!tenant) return [];
    const keys = [this.key(ns, 'org', tenant.orgId)];
    if (tenant.workspaceId) keys.push(this.key(ns, 'ws', tenant.orgId, tenant.workspaceId));
    return keys;
  }
}

function toStored(namespace: string, h: Record<string, Buffer> | null): StoredVector | undefined {
  if (!h?.id || !h.vec) return undefined;
  const s = (k: string) => h[k]?.toString() ?? '';
  const orgId = s('orgId');
  const workspaceId = s('workspaceId');
  return {
    namespace,
    id: s('id'),
    label: Number(s('label')),
    shard: Number(s('shard')),
    text: s('text'),
    textHash: s('textHash'),
    model: s('model'),
    vector: decodeVector(h.vec),
    tenant: orgId ? (workspaceId ? { orgId, workspaceId } : { orgId }) : undefined,
    metadata: s('metadata') ? (JSON.parse(s('metadata')) as Record<string, unknown>) : {},
    createdAt: Number(s('createdAt')),
    updatedAt: Number(s('updatedAt')),
  };
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError('VALIDATION', `Invalid ${what}: ${z.prettifyError(r.error)}`);
  return r.data;
}
