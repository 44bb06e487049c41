import 'server-only';
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { SESSION_TTL_SECONDS } from './session-options';

/** A session id: 24 random bytes, URL-safe. */
const SID = /^[A-Za-z0-9_-]{32}$/;

/**
 * Server-side sessions: the sealed cookie carries a random id, and a request counts as
 * signed in only while that id is open here. Sign-out closes it at once, so a copied
 * cookie stops working; a password or role change closes all of the user's sessions.
 * Keys live under the `auth` tag, beside the users (one slot on a cluster).
 */
export class SessionRegistry {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly ttlSeconds = SESSION_TTL_SECONDS,
  ) {}

  private sessionKey(sid: string): string {
    return this.keys.tagged('auth', 'session', sid);
  }

  private userSessionsKey(username: string): string {
    return this.keys.tagged('auth', 'sessions', username);
  }

  /** Opens a session for `username`; returns its id for the cookie. */
  async open(username: string): Promise<string> {
    const sid = randomBytes(24).toString('base64url');
    const list = this.userSessionsKey(username);
    await this.redis
      .multi()
      .set(this.sessionKey(sid), username, 'EX', this.ttlSeconds)
      .sadd(list, sid)
      .expire(list, this.ttlSeconds)
      .exec();
    return sid;
  }

  /** Whether `sid` is an open session of `username`. */
  async isOpen(sid: string | undefined, username: string): Promise<boolean> {
    if (!sid || !SID.test(sid)) return false;
    return (await this.redis.get(this.sessionKey(sid))) === username;
  }

  /**
   * Which of `sessions` are open, in one round trip (MGET: the keys share the `auth` tag,
   * one slot on a cluster): the live streams' re-check (dashboard/live/live-hub.ts).
   */
  async openMany(sessions: ReadonlyArray<{ sid: string; username: string }>): Promise<boolean[]> {
    const valid = sessions.map((s) => SID.test(s.sid));
    const keys = sessions.filter((_, i) => valid[i]).map((s) => this.sessionKey(s.sid));
    const owners = keys.length > 0 ? await this.redis.mget(...keys) : [];
    let k = 0;
    return sessions.map((s, i) => valid[i] && owners[k++] === s.username);
  }

  /** Closes one session (sign-out). Closing an unknown or closed id is a no-op. */
  async close(sid: string | undefined): Promise<void> {
    if (!sid || !SID.test(sid)) return;
    const username = await this.redis.get(this.sessionKey(sid));
    const multi = this.redis.multi().del(this.sessionKey(sid));
    if (username) multi.srem(this.userSessionsKey(username), sid);
    await multi.exec();
  }

  /** Closes every session of `username` (password or role changed, user removed); returns how many were open. */
  async closeAll(username: string): Promise<number> {
    const list = this.userSessionsKey(username);
    const sids = await this.redis.smembers(list);
    const multi = this.redis.multi();
    for (const sid of sids) multi.del(this.sessionKey(sid));
    const res = await multi.del(list).exec();
    return (res ?? []).slice(0, sids.length).filter(([, n]) => n === 1).length;
  }
}
