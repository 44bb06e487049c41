import 'server-only';
import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';

export interface RateLimitOptions {
  /** Failed sign-ins one client may make against one account before delays start. @defaultValue 3 */
  freeFailures?: number;
  /** The first delay after the free failures; each further failure doubles it. @defaultValue 1000 */
  baseDelayMs?: number;
  /** The longest delay between two attempts of one (account, client) pair. @defaultValue 900000 (15 min) */
  maxDelayMs?: number;
  /** Failed sign-ins one client may make across all accounts per window (a sprayer). @defaultValue 30 */
  maxPerClient?: number;
  /**
   * Failed sign-ins from everyone per window: the cap on distributed guessing (many
   * clients, one account). Past it, only clients with no failure of their own in the
   * window get an attempt: the cap bounds hashing work, never an account, so a real
   * user signing in from a clean address is not refused. @defaultValue 300
   */
  globalMax?: number;
  /** Window of the per-client and global counts. @defaultValue 900000 (15 min) */
  windowMs?: number;
}

export type Reservation =
  /** `clean`: the client had no failure in the window before this attempt. */
  { allowed: true; clean: boolean } | { allowed: false; scope: 'pair' | 'client' | 'global'; retryAfterMs: number };

/**
 * Reserves one attempt atomically: refused while the pair waits out its delay or a cap
 * is reached; otherwise the attempt is counted as a failure *before* the password is
 * checked (a success withdraws it), so parallel guesses cannot all pass one check.
 *
 * KEYS: pair hash, client counter, global counter
 * ARGV: now, freeFailures, baseDelayMs, maxDelayMs, maxPerClient, globalMax, windowMs
 * Returns {1, clientFailuresBefore} or {0, scope, retryAfterMs}.
 */
const RESERVE = new LuaCommand('auth-reserve', LUA['auth-reserve']);

/** A success: the pair starts over, and the counts the reservation added are withdrawn. */
const RELEASE = new LuaCommand('auth-release', LUA['auth-release']);

/** An attempt that did no hashing: the counts the reservation added are withdrawn, the pair kept. */
const WITHDRAW = new LuaCommand('auth-withdraw', LUA['auth-withdraw']);

/**
 * Sign-in throttling in Redis, shared by every dashboard process (docs/security.md):
 * - per (account, client): a few free failures, then delays that double up to a cap, so
 *   a guesser slows down while the real user signing in from elsewhere is never locked
 *   out by someone else's failures;
 * - per client across accounts, against spraying one password over many names;
 * - a global cap, against one account guessed from many clients; it refuses only
 *   clients that failed themselves in the window, so no one is locked out by it.
 * Reserve and count are one script: 30 parallel guesses cannot all be checked. Only a
 * password check counts: an attempt refused before hashing is withdrawn.
 */
export class SignInRateLimiter {
  readonly freeFailures: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxPerClient: number;
  readonly globalMax: number;
  readonly windowMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    opts: RateLimitOptions = {},
  ) {
    this.freeFailures = opts.freeFailures ?? 3;
    this.baseDelayMs = opts.baseDelayMs ?? 1_000;
    this.maxDelayMs = opts.maxDelayMs ?? 15 * 60_000;
    this.maxPerClient = opts.maxPerClient ?? 30;
    this.globalMax = opts.globalMax ?? 300;
    this.windowMs = opts.windowMs ?? 15 * 60_000;
  }

  /** The three counters of one attempt, all under the `auth` tag (one slot on a cluster). */
  private counterKeys(username: string, client: string): string[] {
    const who = client || 'unknown';
    return [
      this.keys.tagged('auth', 'fail', 'pair', username.toLowerCase(), who),
      this.keys.tagged('auth', 'fail', 'client', who),
      this.keys.tagged('auth', 'fail', 'global'),
    ];
  }

  /** Takes one attempt for `username` from `client`, or says who must wait and how long. */
  async reserve(username: string, client: string, now = Date.now()): Promise<Reservation> {
    const reply = (await RESERVE.run(this.redis, this.counterKeys(username, client), [
      now,
      this.freeFailures,
      this.baseDelayMs,
      this.maxDelayMs,
      this.maxPerClient,
      this.globalMax,
      this.windowMs,
    ])) as [number, (string | number)?, number?];
    if (reply[0] === 1) return { allowed: true, clean: Number(reply[1]) === 0 };
    return { allowed: false, scope: reply[1] as 'pair' | 'client' | 'global', retryAfterMs: Number(reply[2]) };
  }

  /** After a successful sign-in: the pair starts over and the reservation is not a failure. */
  async release(username: string, client: string): Promise<void> {
    await RELEASE.run(this.redis, this.counterKeys(username, client), []);
  }

  /** After an attempt refused before its password was checked: the reservation counts for nothing. */
  async withdraw(username: string, client: string): Promise<void> {
    await WITHDRAW.run(this.redis, this.counterKeys(username, client), []);
  }
}
