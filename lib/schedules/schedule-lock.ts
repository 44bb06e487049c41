import { randomBytes } from 'node:crypto';
import { LuaScript } from '../dlq/lua-script';
import type { RedisClient } from '../redis/connection';

/** Deletes the lock only while it still holds our token: an expired holder cannot free a successor's lock. */
const RELEASE = new LuaScript(
  'schedule-lock-release',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
);

/** How often a waiting caller retries; well under an edit's round trips. */
const POLL_MS = 50;

export interface LockOptions {
  /**
   * How long the lock lives if its holder dies mid-way. Applying every schedule takes
   * milliseconds; the margin covers a slow Redis, not slow code.
   * @defaultValue 30000
   */
  ttlMs?: number;
}

/**
 * One owner at a time for the schedules' BullMQ side: concurrent upserts of the same
 * Job Scheduler from several instances have produced duplicate or missing runs, so
 * every change to them happens under this lock (SET NX PX with a random token,
 * released by compare-and-delete).
 */
export class ScheduleLock {
  private readonly ttlMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    opts: LockOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 100) {
      throw new Error(`ttlMs must be an integer of at least 100 ms, got ${opts.ttlMs}`);
    }
  }

  /**
   * Takes the lock, retrying for up to `waitMs` (0: one try). Returns the token to
   * release with, or undefined when another holder kept it the whole time.
   */
  async acquire(waitMs: number): Promise<string | undefined> {
    const token = randomBytes(16).toString('hex');
    const deadline = Date.now() + waitMs;
    for (;;) {
      if ((await this.redis.set(this.key, token, 'PX', this.ttlMs, 'NX')) === 'OK') return token;
      if (Date.now() + POLL_MS > deadline) return undefined;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Frees the lock if `token` still holds it; true when it did. */
  async release(token: string): Promise<boolean> {
    return Number(await RELEASE.run(this.redis, [this.key], [token])) === 1;
  }

  /** Runs `fn` under the lock; `{acquired: false}` when it could not be taken within `waitMs`. */
  async run<T>(waitMs: number, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }> {
    const token = await this.acquire(waitMs);
    if (!token) return { acquired: false };
    try {
      return { acquired: true, value: await fn() };
    } finally {
      // A failed release must not hide fn's own outcome; the TTL frees the lock anyway.
      await this.release(token).catch(() => false);
    }
  }
}
