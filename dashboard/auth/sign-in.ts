import 'server-only';
import { AppError, isAppError } from '@/lib/errors/app-error';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { ConcurrencyGate } from './concurrency-gate';
import { SignInRateLimiter, type RateLimitOptions, type Reservation } from './rate-limiter';
import type { SessionRegistry } from './session-registry';
import { UserStore, type User } from './user-store';

export interface SignInOptions {
  limits?: RateLimitOptions;
  /**
   * Password checks (one scrypt each) running at once in this process, and how many may
   * wait; past that an attempt is refused as busy. @defaultValue { limit: 2, maxWaiting: 8 }
   */
  hashing?: { limit: number; maxWaiting: number };
}

/**
 * Checks a name and password with throttling around it (docs/security.md):
 * an attempt is first reserved atomically (refused → RATE_LIMITED 429 before any
 * hashing), then the password check waits for one of a few hashing slots, a client
 * with no recent failures ahead of the others; wrong → UNAUTHENTICATED (401) with one
 * message for "no such user" and "wrong password". An attempt refused as busy did no
 * hashing, so its reservation is withdrawn: only password checks count toward a cap.
 */
export class SignInService {
  readonly users: UserStore;
  readonly limiter: SignInRateLimiter;
  private readonly hashing: ConcurrencyGate;

  constructor(redis: RedisClient, keys: Keyspace, opts: SignInOptions = {}) {
    this.users = new UserStore(redis, keys);
    this.limiter = new SignInRateLimiter(redis, keys, opts.limits);
    const hashing = opts.hashing ?? { limit: 2, maxWaiting: 8 };
    this.hashing = new ConcurrencyGate({ ...hashing, busyMessage: 'Sign-in is busy right now. Try again in a moment.' });
  }

  /** The open sessions (sign-in opens one, sign-out closes it). */
  get sessions(): SessionRegistry {
    return this.users.sessions;
  }

  async signIn(username: string, password: string, client: string): Promise<User> {
    const name = username.trim().toLowerCase();
    const reservation = await this.limiter.reserve(name, client);
    if (!reservation.allowed) throw rateLimited(reservation);
    let user: User | undefined;
    try {
      user = await this.hashing.run(() => this.users.verifyCredentials(name, password), { priority: reservation.clean });
    } catch (err) {
      if (isAppError(err) && err.code === 'RATE_LIMITED') await this.limiter.withdraw(name, client);
      throw err;
    }
    if (!user) throw new AppError('UNAUTHENTICATED', 'Wrong user name or password');
    await this.limiter.release(name, client);
    return user;
  }
}

function rateLimited(r: Extract<Reservation, { allowed: false }>): AppError {
  const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1_000));
  const wait = seconds < 120 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`;
  const who =
    r.scope === 'pair'
      ? 'Too many failed sign-ins for this name from your address.'
      : r.scope === 'client'
        ? 'Too many failed sign-ins from your address.'
        : 'Too many failed sign-ins on this dashboard; sign-in is paused for everyone.';
  return new AppError('RATE_LIMITED', `${who} Try again in ${wait}.`, { retryAfterMs: r.retryAfterMs, scope: r.scope });
}
