import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
import type { Tenant } from '@/lib/jobs/tenant';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { TenantRecordsStore } from '../../shared/tenant-records-store';
import { sessionSchema, type Session } from './session';

/**
 * Removes sessions that are still idle at the cutoff, in one step, so a session touched
 * after it was selected survives. KEYS: records hash, `all` index, idle index, then each
 * session's tenant index keys; ARGV: cutoff, then (id, number of its tenant keys) pairs.
 */
const EXPIRE_IF_IDLE = new LuaCommand('session-expire-if-idle', LUA['session-expire-if-idle']);

/**
 * Sessions in Redis. The idle index (a sorted set by last activity) is the authority for
 * `lastActiveAt`: a touch is one `ZADD XX`, with no read-modify-write of the record, and
 * cleanup and archive select from it by score.
 */
export class SessionStore extends TenantRecordsStore<Session> {
  private readonly redis: RedisClient;
  private readonly idleKey: string;

  constructor(redis: RedisClient, keys: Keyspace) {
    const idleKey = keys.tagged('sessions', 'sessions', 'idle');
    super(redis, keys, {
      name: 'sessions',
      tag: 'sessions',
      schema: sessionSchema,
      score: (s) => s.createdAt,
      onPut: (tx, s) => tx.zadd(idleKey, s.lastActiveAt, s.id),
      onRemove: (tx, s) => tx.zrem(idleKey, s.id),
    });
    this.redis = redis;
    this.idleKey = idleKey;
  }

  /** Creates or replaces a session (a save is activity: its lastActiveAt is indexed). */
  save(session: Session): Promise<Session> {
    return this.records.put(session);
  }

  /** Marks activity; a session that does not exist stays absent. */
  async touch(id: string, at: number): Promise<void> {
    await this.redis.zadd(this.idleKey, 'XX', 'GT', at, id);
  }

  async get(id: string): Promise<Session | undefined> {
    const [session] = await this.withActivity([await this.records.get(id)]);
    return session;
  }

  countIdle(cutoff: number): Promise<number> {
    return this.redis.zcount(this.idleKey, '-inf', cutoff);
  }

  /** The `limit` longest-idle sessions whose last activity is at or before `cutoff`. */
  async idle(cutoff: number, limit: number): Promise<Session[]> {
    const ids = await this.redis.zrangebyscore(this.idleKey, '-inf', cutoff, 'LIMIT', 0, limit);
    const found = await this.withActivity(await this.records.getMany(ids));
    const orphans = ids.filter((_, i) => found[i] === undefined);
    // An idle entry without its record (never expected) would block the batch forever.
    if (orphans.length) await this.redis.zrem(this.idleKey, ...orphans);
    return found.filter((s): s is Session => s !== undefined);
  }

  /** Removes those of `sessions` still idle at `cutoff`; returns how many. */
  async expireIfIdle(sessions: readonly Session[], cutoff: number): Promise<number> {
    if (sessions.length === 0) return 0;
    const keys = [this.records.recordsKey, this.records.allIndexKey, this.idleKey];
    const args: Array<string | number> = [cutoff];
    for (const s of sessions) {
      const k = this.records.indexKeys(s);
      const tenantKeys = [k.org, k.ws].filter((x): x is string => x !== undefined);
      keys.push(...tenantKeys);
      args.push(s.id, tenantKeys.length);
    }
    return (await EXPIRE_IF_IDLE.run(this.redis, keys, args)) as number;
  }

  /** Removes these sessions whatever their activity (they were archived); returns how many existed. */
  async removeArchived(ids: readonly string[]): Promise<number> {
    return this.records.remove(ids);
  }

  override async *exportByTenant(tenant: Tenant): AsyncIterable<Record<string, unknown>> {
    let batch: Session[] = [];
    for await (const s of this.records.exportByTenant(tenant)) {
      batch.push(s as Session);
      if (batch.length >= 500) {
        yield* (await this.withActivity(batch)) as Session[];
        batch = [];
      }
    }
    yield* (await this.withActivity(batch)) as Session[];
  }

  /** The records with `lastActiveAt` read from the idle index, in one round trip. */
  private async withActivity(sessions: Array<Session | undefined>): Promise<Array<Session | undefined>> {
    const present = sessions.filter((s): s is Session => s !== undefined);
    if (present.length === 0) return sessions;
    const scores = await this.redis.zmscore(this.idleKey, ...present.map((s) => s.id));
    const byId = new Map(present.map((s, i) => [s.id, scores[i]]));
    return sessions.map((s) => {
      const score = s && byId.get(s.id);
      return s && score != null ? { ...s, lastActiveAt: Number(score) } : s;
    });
  }
}
