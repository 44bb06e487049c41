import { AppError } from '../errors/app-error';
import { isRedisUnavailable } from '../errors/classify';
import { TimeoutError } from '../errors/timeout-error';
import { withTimeLimit } from '../health/time-limit';
import { readyClient, type RedisClient } from './connection';

/** What a bounded call tells about a write it could not confirm. */
export interface RedisBoundFailure {
  /** The bound, in ms. */
  timeoutMs: number;
  /**
   * Whether the commands may have reached Redis: they were written to a connection that
   * then gave no answer (a hung server keeps its socket open and runs what sits in it
   * when it resumes). False when nothing was sent: the connection was not ready.
   */
  maybeApplied: boolean;
  retryable: true;
}

/**
 * Runs `work` (commands on `redis`) within `timeoutMs` in all, or rejects with AppError
 * REDIS_UNAVAILABLE. Nothing is sent before the connection is ready: a connection still
 * opening, or reconnecting after Redis went away, is waited for within the same bound,
 * so no command of `work` is left in a queue to run when Redis returns
 * (docs/decisions/0006-connection-roles.md). A Redis that hangs once the work is sent
 * is cut by the bound; the failure's `maybeApplied` then says the work may still run.
 */
export async function withinRedisBound<T>(
  redis: RedisClient | undefined,
  timeoutMs: number,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  if (redis && redis.status !== 'ready') {
    try {
      await readyClient(redis, timeoutMs);
    } catch {
      throw redisUnavailable(what, timeoutMs, false);
    }
  }
  const left = Math.max(1, Math.round(timeoutMs - (performance.now() - started)));
  try {
    return await withTimeLimit(work(), left, what);
  } catch (err) {
    if (err instanceof TimeoutError) throw redisUnavailable(what, timeoutMs, true);
    // "Stream isn't writeable": refused before it was sent; anything else may have left.
    if (isRedisUnavailable(err)) throw redisUnavailable(what, timeoutMs, !/^Stream isn't writeable/.test((err as Error).message));
    throw err;
  }
}

function redisUnavailable(what: string, timeoutMs: number, maybeApplied: boolean): AppError {
  const details: RedisBoundFailure = { timeoutMs, maybeApplied, retryable: true };
  const message = maybeApplied
    ? `Redis did not confirm ${what} within ${timeoutMs} ms: it may still be applied if Redis received it; check before repeating it`
    : `Redis is unreachable: ${what} was not sent (waited ${timeoutMs} ms)`;
  return new AppError('REDIS_UNAVAILABLE', message, { ...details });
}
