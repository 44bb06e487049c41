import { LUA } from './lua';
import { LuaCommand } from './lua-command';
import type { RedisClient } from './connection';

/** Takes the lease when it is free or already ours; otherwise returns its holder. */
const ACQUIRE = new LuaCommand('lease-acquire', LUA['lease-acquire']);
/** Extends the lease only while `owner` still holds it. */
const RENEW = new LuaCommand('lease-renew', LUA['lease-renew']);
/** Frees the lease only while `owner` still holds it: an expired holder cannot free a successor's lease. */
const RELEASE = new LuaCommand('lease-release', LUA['lease-release']);

/** How often a waiting caller tries again. */
const POLL_MS = 50;

export interface LeaseOptions {
  /**
   * How long the lease lives unless renewed: how long a killed holder can block others.
   * @defaultValue 30000
   */
  ttlMs?: number;
}

/**
 * One holder at a time for something several processes could do at once (applying the
 * Job Schedulers, archiving sessions): a Redis key holding the owner's name with a TTL.
 * The same owner takes it back at once (a retried job reclaims its own lease), a dead
 * owner's lease expires, and only the owner can renew or free it. The one lock of
 * Bullpen; callers name what holding it means.
 */
export class Lease {
  readonly ttlMs: number;

  constructor(
    private readonly redis: RedisClient,
    readonly key: string,
    opts: LeaseOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 100) {
      throw new RangeError(`ttlMs must be an integer of at least 100 ms, got ${opts.ttlMs}`);
    }
  }

  /** Takes the lease for `owner`; null when taken (or already ours), else the current holder. */
  async tryAcquire(owner: string): Promise<string | null> {
    return ((await ACQUIRE.run(this.redis, [this.key], [owner, this.ttlMs])) as string | null) ?? null;
  }

  /** Takes the lease, trying again for up to `waitMs` (0: one try); true when `owner` holds it. */
  async acquire(owner: string, waitMs = 0): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if ((await this.tryAcquire(owner)) === null) return true;
      if (Date.now() + POLL_MS > deadline) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Extends the lease; false when `owner` lost it (expired and taken), so the holder should stop. */
  async renew(owner: string): Promise<boolean> {
    return Number(await RENEW.run(this.redis, [this.key], [owner, this.ttlMs])) === 1;
  }

  /** Frees the lease if `owner` still holds it; true when it did. */
  async release(owner: string): Promise<boolean> {
    return Number(await RELEASE.run(this.redis, [this.key], [owner])) === 1;
  }

  /** Runs `fn` holding the lease; `{acquired: false}` when it could not be taken within `waitMs`. */
  async run<T>(owner: string, waitMs: number, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }> {
    if (!(await this.acquire(owner, waitMs))) return { acquired: false };
    try {
      return { acquired: true, value: await fn() };
    } finally {
      // A failed release must not hide fn's own outcome; the TTL frees the lease anyway.
      await this.release(owner).catch(() => false);
    }
  }
}
