import { AppError } from '../../errors/app-error';
import type { RedisClient } from '../../redis/connection';

/** Takes the lock when free or already ours (a retried job reclaims its own lock at once). */
const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * A Redis lease held by one owner (a job id) that expires unless renewed, so a killed
 * holder blocks others for at most `ttlMs`, while the same job retried takes it back at
 * once. Refusal is an AppError CONFLICT, which the runtime retries with backoff.
 */
export class ArchiveLock {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    /** Lease length; renewed after every batch. @defaultValue 120_000 */
    private readonly ttlMs = 120_000,
  ) {}

  async acquire(owner: string): Promise<void> {
    const holder = (await this.redis.eval(ACQUIRE, 1, this.key, owner, this.ttlMs)) as string | null;
    if (holder) {
      throw new AppError('CONFLICT', `The session archive is held by ${holder}; try again when it finishes`, { holder });
    }
  }

  /** Extends the lease; throws when it was lost (expired and taken), so the holder stops. */
  async renew(owner: string): Promise<void> {
    const ok = (await this.redis.eval(RENEW, 1, this.key, owner, this.ttlMs)) as number;
    if (ok !== 1) throw new AppError('CONFLICT', `The session archive lease of ${owner} expired`);
  }

  async release(owner: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, owner);
  }

  /** Runs `fn` holding the lock. */
  async with<T>(owner: string, fn: () => Promise<T>): Promise<T> {
    await this.acquire(owner);
    try {
      return await fn();
    } finally {
      await this.release(owner);
    }
  }
}
