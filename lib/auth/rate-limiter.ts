import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';

export interface RateLimitOptions {
  /** Failed sign-ins allowed per window for one user name. @defaultValue 5 */
  max?: number;
  /**
   * Failed sign-ins allowed per window from one client IP, across names. Higher than
   * `max` because several operators may share an office NAT or VPN exit.
   * @defaultValue 20
   */
  maxPerIp?: number;
  /** Window length. @defaultValue 900000 (15 minutes) */
  windowMs?: number;
}

export interface RateLimitState {
  limited: boolean;
  /** When limited: how long until the oldest window expires. */
  retryAfterMs: number;
}

/**
 * Fixed-window counters of failed sign-ins in Redis, one per username and one per
 * IP, so a guesser is slowed whether it hammers one account or sprays many. Shared by every
 * dashboard process because it lives in Redis, not in memory.
 */
export class SignInRateLimiter {
  readonly max: number;
  readonly maxPerIp: number;
  readonly windowMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    opts: RateLimitOptions = {},
  ) {
    this.max = opts.max ?? 5;
    this.maxPerIp = opts.maxPerIp ?? 20;
    this.windowMs = opts.windowMs ?? 15 * 60_000;
  }

  private counterKeys(username: string, ip: string): string[] {
    return [
      this.keys.tagged('auth', 'fail', 'user', username.toLowerCase()),
      this.keys.tagged('auth', 'fail', 'ip', ip || 'unknown'),
    ];
  }

  async state(username: string, ip: string): Promise<RateLimitState> {
    const keys = this.counterKeys(username, ip);
    const pipe = this.redis.multi();
    for (const k of keys) pipe.get(k).pttl(k);
    const res = (await pipe.exec()) ?? [];
    let retryAfterMs = 0;
    for (let i = 0; i < keys.length; i++) {
      const count = Number(res[i * 2]?.[1] ?? 0);
      const ttl = Number(res[i * 2 + 1]?.[1] ?? -2);
      if (count >= (i === 0 ? this.max : this.maxPerIp)) retryAfterMs = Math.max(retryAfterMs, ttl > 0 ? ttl : this.windowMs);
    }
    return { limited: retryAfterMs > 0, retryAfterMs };
  }

  /** Counts one failure against both the name and the IP. */
  async recordFailure(username: string, ip: string): Promise<void> {
    const pipe = this.redis.multi();
    for (const k of this.counterKeys(username, ip)) {
      pipe.incr(k);
      // NX: the window starts at the first failure and is not extended by later ones.
      pipe.call('PEXPIRE', k, String(this.windowMs), 'NX');
    }
    await pipe.exec();
  }

  /** A successful sign-in clears the name's counter (the IP's stays: it may be spraying). */
  async clearUser(username: string): Promise<void> {
    await this.redis.del(this.counterKeys(username, '')[0]);
  }
}
