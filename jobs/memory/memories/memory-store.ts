import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import {
  memoryIdSchema,
  memoryPatchSchema,
  memorySchema,
  newMemorySchema,
  type Memory,
  type MemoryKind,
  type MemoryPatch,
  type NewMemory,
} from './memory';
import { CREATE, DECAY_BATCH, SAVE_CONSOLIDATED, UPDATE } from './memory-scripts';

/** Which memories: one workspace, one organisation, or (no orgId) every tenant. */
export interface MemoryScope {
  orgId?: string;
  workspaceId?: string;
}

export interface MemoryPage {
  items: Memory[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

/** A job's progress record: cursor, counters, and its result once done. */
export type RunRecord = Record<string, string>;

/** Largest page a caller may ask for: one round trip must stay small for Redis. */
export const MEMORY_PAGE_MAX = 1_000;
/** How long a job's run record outlives its last write: longer than any retry schedule. */
export const RUN_RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1_000;

const TAG = 'memories';

/**
 * Memories in Redis. A memory is a hash; per-scope sorted sets index it (every tenant,
 * its organisation, its workspace; all kinds and its own kind). Index members are
 * `<createdAt, 15 digits>|<id>` with score 0, so a lexicographic range is both the age
 * order and a stable cursor: paging never uses KEYS or SCAN, and a deletion during a
 * walk skips nothing. Every key shares the `{memories}` hash tag, so scripts and
 * MULTI blocks that touch a memory and its indexes work on a Redis Cluster too.
 */
export class MemoryStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  async create(input: NewMemory, now = Date.now()): Promise<Memory> {
    const parsed = parseOrThrow(newMemorySchema, input, 'memory');
    const memory = parseOrThrow(
      memorySchema,
      { ...parsed, id: parsed.id ?? randomUUID(), createdAt: parsed.createdAt ?? now, updatedAt: now },
      'memory',
    );
    const indexKeys = this.indexKeysOf(memory);
    const created = await CREATE.run(this.redis, [this.memoryKey(memory.id), ...indexKeys], [memberOf(memory), ...toFields(memory)]);
    if (created !== 1) throw new AppError('CONFLICT', `Memory "${memory.id}" already exists`, { id: memory.id });
    return memory;
  }

  async get(id: string): Promise<Memory | undefined> {
    if (!memoryIdSchema.safeParse(id).success) return undefined;
    const hash = await this.redis.hgetall(this.memoryKey(id));
    return fromHash(hash);
  }

  /** One round trip for many ids; a missing one is `undefined` in its place. */
  async getMany(ids: readonly string[]): Promise<Array<Memory | undefined>> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.memoryKey(id));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([err, hash]) => {
      if (err) throw err;
      return fromHash(hash as Record<string, string>);
    });
  }

  /** Changes content, importance, metadata or embeddingId; NOT_FOUND when the memory is gone. */
  async update(id: string, patch: MemoryPatch, now = Date.now()): Promise<Memory> {
    const p = parseOrThrow(memoryPatchSchema, patch, 'memory patch');
    const set: string[] = ['updatedAt', String(now)];
    if (p.content !== undefined) set.push('content', p.content);
    if (p.importance !== undefined) set.push('importance', formatImportance(p.importance));
    if (p.metadata !== undefined) set.push('metadata', JSON.stringify(p.metadata));
    if (p.embeddingId !== undefined) set.push('embeddingId', p.embeddingId);
    await this.applyUpdate(id, set, []);
    return (await this.get(id)) ?? notFound(id);
  }

  /** Points the memory at its vector; false (and nothing written) when the memory is gone. */
  async linkEmbedding(id: string, embeddingId: string, now = Date.now()): Promise<boolean> {
    return this.applyUpdate(id, ['embeddingId', embeddingId, 'updatedAt', String(now)], [], false);
  }

  /** Records a read, so "last accessed" can inform what to keep. */
  async touch(id: string, now = Date.now()): Promise<boolean> {
    return this.applyUpdate(id, ['accessedAt', String(now)], [], false);
  }

  async delete(id: string): Promise<boolean> {
    const memory = await this.get(id);
    if (!memory) return false;
    return (await this.deleteMany([memory])) === 1;
  }

  /** Deletes these memories and their index entries in one MULTI; returns how many existed. */
  async deleteMany(memories: readonly Memory[]): Promise<number> {
    if (memories.length === 0) return 0;
    const multi = this.redis.multi();
    const delAt: number[] = [];
    let queued = 0;
    for (const m of memories) {
      delAt.push(queued);
      multi.del(this.memoryKey(m.id));
      const indexKeys = this.indexKeysOf(m);
      for (const key of indexKeys) multi.zrem(key, memberOf(m));
      queued += 1 + indexKeys.length;
    }
    const results = (await multi.exec()) ?? [];
    let removed = 0;
    for (const at of delAt) {
      const [err, n] = results[at];
      if (err) throw err;
      removed += Number(n);
    }
    return removed;
  }

  async count(scope: MemoryScope = {}, kind?: MemoryKind): Promise<number> {
    return this.redis.zcard(this.indexKey(scopeParts(scope), kind));
  }

  /** Index members (`<createdAt>|<id>`) after `after`, oldest first. */
  async members(
    scope: MemoryScope,
    opts: { kind?: MemoryKind; after?: string; limit?: number; createdBefore?: number } = {},
  ): Promise<string[]> {
    const limit = Math.min(Math.max(1, opts.limit ?? 100), MEMORY_PAGE_MAX);
    const min = opts.after ? `(${opts.after}` : '-';
    // `|` sorts after every digit, so this bound keeps exactly the members created before the time.
    const max = opts.createdBefore !== undefined ? `(${padTime(opts.createdBefore)}|` : '+';
    return this.redis.zrange(this.indexKey(scopeParts(scope), opts.kind), min, max, 'BYLEX', 'LIMIT', 0, limit);
  }

  /** A page of memories, oldest first; pass `next` back as `after`. */
  async page(scope: MemoryScope, opts: { kind?: MemoryKind; after?: string; limit?: number } = {}): Promise<MemoryPage> {
    const limit = Math.min(Math.max(1, opts.limit ?? 100), MEMORY_PAGE_MAX);
    const members = await this.members(scope, { ...opts, limit });
    const loaded = await this.getMany(members.map(idOfMember));
    return {
      items: loaded.filter((m): m is Memory => m !== undefined),
      next: members.length === limit ? members[members.length - 1] : undefined,
    };
  }

  /** Walks a scope page by page; never holds more than one page. */
  async *batches(scope: MemoryScope, opts: { kind?: MemoryKind; batchSize?: number } = {}): AsyncGenerator<Memory[]> {
    let after: string | undefined;
    do {
      const page = await this.page(scope, { kind: opts.kind, after, limit: opts.batchSize ?? 500 });
      if (page.items.length) yield page.items;
      after = page.next;
    } while (after);
  }

  /**
   * Saves a consolidation's semantic memory and marks its sources `consolidatedInto`
   * (halving their importance when `halveSources`), atomically. When the semantic
   * memory exists already (its id derives from its sources) nothing changes.
   */
  async saveConsolidated(semantic: Memory, halveSources: boolean, now = Date.now()): Promise<{ created: boolean; marked: number }> {
    const m = parseOrThrow(memorySchema, semantic, 'semantic memory');
    if (m.kind !== 'semantic' || !m.sourceIds?.length) {
      throw new AppError('VALIDATION', 'A consolidated memory is semantic and names its sourceIds');
    }
    const indexKeys = this.indexKeysOf(m);
    const marked = await SAVE_CONSOLIDATED.run(
      this.redis,
      [this.memoryKey(m.id), ...indexKeys, ...m.sourceIds.map((id) => this.memoryKey(id))],
      [String(indexKeys.length), memberOf(m), halveSources ? '1' : '0', String(now), m.id, ...toFields(m)],
    );
    return marked === 0 ? { created: false, marked: 0 } : { created: true, marked: Number(marked) };
  }

  /**
   * Lowers the importance of the memories named by `members` and moves the run's cursor
   * to the last of them, in one script. Returns -1 (and changes nothing) when the run's
   * cursor is not `expectedCursor`: that batch was applied already.
   */
  async decayBatch(
    runId: string,
    members: readonly string[],
    opts: { factor: number; floor: number; expectedCursor: string },
    now = Date.now(),
  ): Promise<number> {
    if (members.length === 0) return 0;
    const result = await DECAY_BATCH.run(
      this.redis,
      [this.runKey(runId), ...members.map((m) => this.memoryKey(idOfMember(m)))],
      [String(opts.factor), String(opts.floor), String(now), opts.expectedCursor, members[members.length - 1], String(RUN_RECORD_TTL_MS)],
    );
    return Number(result);
  }

  /** A job run's record (cursor, counters, result; see jobRunId); empty when it never ran. */
  async getRun(runId: string): Promise<RunRecord> {
    return this.redis.hgetall(this.runKey(runId));
  }

  async putRun(runId: string, fields: Record<string, string | number>): Promise<void> {
    const key = this.runKey(runId);
    await this.redis.multi().hset(key, fields).pexpire(key, RUN_RECORD_TTL_MS).exec();
  }

  memoryKey(id: string): string {
    return this.keys.tagged(TAG, 'm', id);
  }

  private runKey(runId: string): string {
    return this.keys.tagged(TAG, 'run', runId);
  }

  private indexKey(scope: string[], kind?: MemoryKind): string {
    return this.keys.tagged(TAG, 'ix', kind ?? 'any', ...scope);
  }

  /** The index sets a memory belongs to: {all, org, workspace if any} × {any kind, its kind}. */
  private indexKeysOf(m: Pick<Memory, 'tenant' | 'kind'>): string[] {
    const scopes = [['all'], ['org', m.tenant.orgId]];
    if (m.tenant.workspaceId) scopes.push(['ws', m.tenant.orgId, m.tenant.workspaceId]);
    return scopes.flatMap((s) => [this.indexKey(s), this.indexKey(s, m.kind)]);
  }

  private async applyUpdate(id: string, set: string[], del: string[], strict = true): Promise<boolean> {
    const updated = await UPDATE.run(this.redis, [this.memoryKey(id)], [String(set.length / 2), ...set, ...del]);
    if (updated !== 1 && strict) notFound(id);
    return updated === 1;
  }
}

/** The memory id inside an index member. */
export function idOfMember(member: string): string {
  return member.slice(member.indexOf('|') + 1);
}

function memberOf(m: Pick<Memory, 'createdAt' | 'id'>): string {
  return `${padTime(m.createdAt)}|${m.id}`;
}

function padTime(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(15, '0');
}

function scopeParts(scope: MemoryScope): string[] {
  if (scope.workspaceId && !scope.orgId) {
    throw new AppError('VALIDATION', 'A workspace scope needs its orgId: workspace ids are unique within an organisation only');
  }
  if (scope.orgId && scope.workspaceId) return ['ws', scope.orgId, scope.workspaceId];
  if (scope.orgId) return ['org', scope.orgId];
  return ['all'];
}

function formatImportance(n: number): string {
  return String(Number(n.toPrecision(10)));
}

function toFields(m: Memory): string[] {
  const f: string[] = [
    'id',
    m.id,
    'kind',
    m.kind,
    'content',
    m.content,
    'importance',
    formatImportance(m.importance),
    'orgId',
    m.tenant.orgId,
    'metadata',
    JSON.stringify(m.metadata),
    'createdAt',
    String(m.createdAt),
    'updatedAt',
    String(m.updatedAt),
  ];
  if (m.tenant.workspaceId) f.push('workspaceId', m.tenant.workspaceId);
  if (m.userId) f.push('userId', m.userId);
  if (m.embeddingId) f.push('embeddingId', m.embeddingId);
  if (m.sourceIds) f.push('sourceIds', JSON.stringify(m.sourceIds));
  if (m.consolidatedInto) f.push('consolidatedInto', m.consolidatedInto);
  if (m.accessedAt !== undefined) f.push('accessedAt', String(m.accessedAt));
  return f;
}

function fromHash(h: Record<string, string> | null | undefined): Memory | undefined {
  if (!h?.id) return undefined;
  const parsed = memorySchema.safeParse({
    id: h.id,
    kind: h.kind,
    content: h.content,
    importance: Number(h.importance),
    embeddingId: h.embeddingId,
    tenant: h.workspaceId ? { orgId: h.orgId, workspaceId: h.workspaceId } : { orgId: h.orgId },
    userId: h.userId,
    metadata: h.metadata ? JSON.parse(h.metadata) : {},
    sourceIds: h.sourceIds ? JSON.parse(h.sourceIds) : undefined,
    consolidatedInto: h.consolidatedInto,
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
    accessedAt: h.accessedAt ? Number(h.accessedAt) : undefined,
  });
  if (!parsed.success) {
    throw new Error(`Stored memory "${h.id}" is malformed: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError('VALIDATION', `Invalid ${what}: ${z.prettifyError(r.error)}`);
  return r.data;
}

function notFound(id: string): never {
  throw new AppError('NOT_FOUND', `Memory "${id}" does not exist`, { id });
}
