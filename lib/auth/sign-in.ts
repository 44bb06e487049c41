import { AppError } from '../errors/app-error';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { SignInRateLimiter, type RateLimitOptions } from './rate-limiter';
import { UserStore, type User } from './user-store';

/**
 * Checks a name and password with the rate limit around it:
 * limited → RATE_LIMITED (429) before any password is hashed; wrong → UNAUTHENTICATED
 * (401) with one message for "no such user" and "wrong password".
 */
export class SignInService {
  readonly users: UserStore;
  readonly limiter: SignInRateLimiter;

  constructor(redis: RedisClient, keys: Keyspace, limits?: RateLimitOptions) {
    this.users = new UserStore(redis, keys);
    this.limiter = new SignInRateLimiter(redis, keys, limits);
  }

  async signIn(username: string, password: string, ip: string): Promise<User> {
    const name = username.trim().toLowerCase();
    const before = await this.limiter.state(name, ip);
    if (before.limited) throw rateLimited(before.retryAfterMs);
    const user = await this.users.verifyCredentials(name, password);
    if (!user) {
      await this.limiter.recordFailure(name, ip);
      throw new AppError('UNAUTHENTICATED', 'Wrong user name or password');
    }
    await this.limiter.clearUser(name);
    return user;
  }
}

function rateLimited(retryAfterMs: number): AppError {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return new AppError('RATE_LIMITED', `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    retryAfterMs,
  });
}
