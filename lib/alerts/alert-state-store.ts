import type { RedisClient } from '../redis/connection';
import type { AlertKeys } from './alert-keys';
import type { AlertMessage } from './alert-message';
import type { AlertPlan, FiringAlert, ResolvedAlert } from './alert-plan';

/** Resolved alerts kept for the alerts page. */
export const RESOLVED_KEPT = 200;

/** One message waiting for one channel. */
export interface OutboxItem {
  id: string;
  channelId: string;
  message: AlertMessage;
  /** Sends that failed so far. */
  attempts: number;
  createdAt: number;
}

export interface ChannelStatus {
  lastOkAt?: number;
  lastFailedAt?: number;
  /** The last failure's message, with the channel's secrets taken out. */
  lastError?: string;
  /** Failures since the last success: what "failing" on the alerts page means. */
  failuresInARow: number;
  /** Messages dropped after their last attempt failed. */
  dropped: number;
}

export interface Acknowledgement {
  by: string;
  at: number;
}

/**
 * The alerts' state in Redis: what fires, what resolved, operators' acknowledgements and
 * silences, the outbox of messages for the channels and each channel's delivery status.
 * A round's new state and its outbox are written in one MULTI, so a worker killed at any
 * point leaves either the old state (the next holder decides again) or the new state
 * with its messages queued: never a transition without its message, nor one twice.
 */
export class AlertStateStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: AlertKeys,
  ) {}

  async firing(): Promise<FiringAlert[]> {
    return Object.values(await this.redis.hgetall(this.keys.firing)).map((j) => JSON.parse(j) as FiringAlert);
  }

  async resolved(limit = RESOLVED_KEPT): Promise<ResolvedAlert[]> {
    return (await this.redis.lrange(this.keys.resolved, 0, Math.min(limit, RESOLVED_KEPT) - 1)).map((j) => JSON.parse(j) as ResolvedAlert);
  }

  async acknowledgements(): Promise<Map<string, Acknowledgement>> {
    const all = await this.redis.hgetall(this.keys.acks);
    return new Map(Object.entries(all).map(([k, j]) => [k, JSON.parse(j) as Acknowledgement]));
  }

  /** Silences still running at `now` (ended ones are removed on the way). */
  async silences(now: number): Promise<Map<string, number>> {
    const all = await this.redis.hgetall(this.keys.silences);
    const out = new Map<string, number>();
    const ended: string[] = [];
    for (const [k, v] of Object.entries(all)) {
      if (Number(v) > now) out.set(k, Number(v));
      else ended.push(k);
    }
    if (ended.length) await this.redis.hdel(this.keys.silences, ...ended);
    return out;
  }

  /** Acknowledges a firing alert; false when it does not fire. */
  async acknowledge(key: string, by: string, now: number): Promise<boolean> {
    if (!(await this.redis.hexists(this.keys.firing, key))) return false;
    await this.redis.hset(this.keys.acks, key, JSON.stringify({ by, at: now } satisfies Acknowledgement));
    return true;
  }

  /** Silences a firing alert until `until`; false when it does not fire. */
  async silence(key: string, until: number): Promise<boolean> {
    if (!(await this.redis.hexists(this.keys.firing, key))) return false;
    await this.redis.hset(this.keys.silences, key, String(until));
    return true;
  }

  async unsilence(key: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.silences, key)) === 1;
  }

  /** Writes a round's plan and queues its message for each channel, in one MULTI. */
  async commit(plan: AlertPlan, items: readonly OutboxItem[], now: number): Promise<void> {
    if (!plan.firing.length && !plan.resolved.length && !items.length) return;
    const m = this.redis.multi();
    for (const a of plan.firing) m.hset(this.keys.firing, a.key, JSON.stringify(a));
    for (const r of plan.resolved) {
      m.hdel(this.keys.firing, r.key);
      m.hdel(this.keys.acks, r.key);
      m.lpush(this.keys.resolved, JSON.stringify(r));
    }
    if (plan.resolved.length) m.ltrim(this.keys.resolved, 0, RESOLVED_KEPT - 1);
    for (const item of items) {
      m.hset(this.keys.outbox, item.id, JSON.stringify(item));
      m.zadd(this.keys.outboxDue, now, item.id);
    }
    await m.exec();
  }

  /** Queues a message for one channel (a test) outside a round. */
  async enqueue(item: OutboxItem, now: number): Promise<void> {
    await this.commit({ firing: [], resolved: [], events: [] }, [item], now);
  }

  /** Items due at `now`, oldest first, at most `limit`. */
  async due(now: number, limit: number): Promise<OutboxItem[]> {
    const ids = await this.redis.zrangebyscore(this.keys.outboxDue, '-inf', now, 'LIMIT', 0, limit);
    if (!ids.length) return [];
    const jsons = await this.redis.hmget(this.keys.outbox, ...ids);
    const items: OutboxItem[] = [];
    const orphans: string[] = [];
    jsons.forEach((j, i) => {
      if (j) items.push(JSON.parse(j) as OutboxItem);
      else orphans.push(ids[i] as string);
    });
    if (orphans.length) await this.redis.zrem(this.keys.outboxDue, ...orphans);
    return items;
  }

  /** The item was delivered, or is dropped: out of the outbox. */
  async done(id: string): Promise<void> {
    await this.redis.multi().hdel(this.keys.outbox, id).zrem(this.keys.outboxDue, id).exec();
  }

  /** The item failed: tried again at `nextAt`. */
  async retryAt(item: OutboxItem, nextAt: number): Promise<void> {
    await this.redis.multi().hset(this.keys.outbox, item.id, JSON.stringify(item)).zadd(this.keys.outboxDue, nextAt, item.id).exec();
  }

  async channelStatuses(): Promise<Map<string, ChannelStatus>> {
    const all = await this.redis.hgetall(this.keys.channelStatus);
    return new Map(Object.entries(all).map(([k, j]) => [k, JSON.parse(j) as ChannelStatus]));
  }

  /** Messages waiting per channel id. */
  async pendingByChannel(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const j of Object.values(await this.redis.hgetall(this.keys.outbox))) {
      const { channelId } = JSON.parse(j) as OutboxItem;
      out.set(channelId, (out.get(channelId) ?? 0) + 1);
    }
    return out;
  }

  async recordDelivery(
    channelId: string,
    outcome: { ok: true; at: number } | { ok: false; at: number; error: string; dropped: boolean },
  ): Promise<void> {
    const before = (await this.channelStatuses()).get(channelId) ?? { failuresInARow: 0, dropped: 0 };
    const after: ChannelStatus = outcome.ok
      ? { ...before, lastOkAt: outcome.at, failuresInARow: 0 }
      : {
          ...before,
          lastFailedAt: outcome.at,
          lastError: outcome.error.slice(0, 500),
          failuresInARow: before.failuresInARow + 1,
          dropped: before.dropped + (outcome.dropped ? 1 : 0),
        };
    await this.redis.hset(this.keys.channelStatus, channelId, JSON.stringify(after));
  }
}
