import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { namespaceKey, vectorNamespaceSchema } from './namespace-key';

export interface EmbeddingFailure {
  /** The run the batch belongs to (see jobRunId): the job id, or its idempotency key's. */
  runId: string;
  jobId: string;
  /** The batch's position in its job, from 0. */
  batch: number;
  at: number;
  ids: string[];
  error: string;
  errorClass: string;
}

/**
 * Record a failed embedding batch, keeping the newest `ARGV[3]`.
 * KEYS: 1 failures hash, 2 failures by time (zset). ARGV: 1 `<runId>:<batch>`, 2 JSON,
 * 3 cap, 4 now.
 */
const RECORD = new LuaCommand('embedding-record', LUA['embedding-record']);

/**
 * Failed embedding batches per namespace, so an operator can see which ids were not
 * embedded and why, beyond the job's own result. One record per (run, batch): a later
 * attempt of the same job (or a replay of a job dispatched with an idempotency key) that
 * embeds the batch clears it, and one that fails again overwrites it, so a retry never
 * leaves two records of one failure.
 */
export class EmbeddingFailureLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    /** Records kept per namespace; the oldest go first. @defaultValue 1000 */
    private readonly cap = 1_000,
  ) {}

  async record(namespace: string, failure: Omit<EmbeddingFailure, 'at'>, now = Date.now()): Promise<void> {
    const ns = this.ns(namespace);
    const record: EmbeddingFailure = { ...failure, at: now };
    await RECORD.run(
      this.redis,
      [this.key(ns, 'failures'), this.key(ns, 'failures-by-time')],
      [`${failure.runId}:${failure.batch}`, JSON.stringify(record), String(this.cap), String(now)],
    );
  }

  async clear(namespace: string, runId: string, batch: number): Promise<void> {
    const ns = this.ns(namespace);
    const field = `${runId}:${batch}`;
    await this.redis.multi().hdel(this.key(ns, 'failures'), field).zrem(this.key(ns, 'failures-by-time'), field).exec();
  }

  /** The newest first. */
  async list(namespace: string, limit = 100): Promise<EmbeddingFailure[]> {
    const ns = this.ns(namespace);
    const fields = await this.redis.zrange(this.key(ns, 'failures-by-time'), 0, limit - 1, 'REV');
    if (fields.length === 0) return [];
    const values = await this.redis.hmget(this.key(ns, 'failures'), ...fields);
    return values.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as EmbeddingFailure);
  }

  private ns(namespace: string): string {
    const r = vectorNamespaceSchema.safeParse(namespace);
    if (!r.success) throw new AppError('VALIDATION', `Invalid vector namespace: ${z.prettifyError(r.error)}`);
    return r.data;
  }

  private key(ns: string, ...parts: string[]): string {
    return namespaceKey(this.keys, ns, ...parts);
  }
}
