import { AppError, isAppError } from '../errors/app-error';
import type { RedisClient } from './connection';
import { withinRedisBound } from './redis-bound';

/** How long the health gate waits for the connection's readiness and a PONG. */
export const WRITE_GATE_MS = 2_000;
/** How long the write itself may take once the gate passed. */
export const WRITE_BOUND_MS = 5_000;

export interface GuardedWriteOptions {
  /** What the operator asked for, in words ("pausing webhook-dispatch"), for the messages. */
  what: string;
  /** @defaultValue WRITE_GATE_MS */
  gateMs?: number;
  /** @defaultValue WRITE_BOUND_MS */
  boundMs?: number;
}

/**
 * Runs an operator's change on `redis` so that it either completes within a bound or
 * fails with a message that tells the truth, and is never applied long after it was
 * reported as failed (docs/decisions/0006-connection-roles.md, "Actions never land late").
 *
 * A hung Redis (SIGSTOP, a stuck server) keeps its socket open: a command written to it
 * runs when the server resumes, whatever the client decided meanwhile. So nothing is
 * written unless the connection is known healthy right now: it must be ready and answer
 * a PING within `gateMs`; otherwise REDIS_UNAVAILABLE, and nothing was sent. Once the
 * gate passed, the change has `boundMs`; a change that Redis does not confirm in time
 * (it hung in the few ms between the PONG and the write, or the connection dropped with
 * the write in flight) is OUTCOME_UNKNOWN: it may still be applied, and the operator is
 * told to check rather than that it failed.
 */
export async function guardedWrite<T>(redis: RedisClient, work: () => Promise<T>, opts: GuardedWriteOptions): Promise<T> {
  const gateMs = opts.gateMs ?? WRITE_GATE_MS;
  const boundMs = opts.boundMs ?? WRITE_BOUND_MS;
  try {
    await withinRedisBound(redis, gateMs, 'PING', () => redis.ping());
  } catch (err) {
    if (!isAppError(err) || err.code !== 'REDIS_UNAVAILABLE') throw err;
    throw new AppError(
      'REDIS_UNAVAILABLE',
      `Redis did not answer within ${gateMs} ms, so nothing was sent and nothing changed (${opts.what}). Try again once Redis is back.`,
      { retryable: true, maybeApplied: false, timeoutMs: gateMs },
    );
  }
  try {
    return await withinRedisBound(redis, boundMs, opts.what, work);
  } catch (err) {
    if (!isAppError(err) || err.code !== 'REDIS_UNAVAILABLE') throw err;
    if (err.details?.maybeApplied !== true) {
      throw new AppError(
        'REDIS_UNAVAILABLE',
        `Redis went away before ${opts.what} was sent: nothing changed. Try again once Redis is back.`,
        {
          retryable: true,
          maybeApplied: false,
          timeoutMs: boundMs,
        },
      );
    }
    throw new AppError(
      'OUTCOME_UNKNOWN',
      `Redis stopped answering while ${opts.what} was under way, and did not confirm it within ${boundMs} ms. It may still take effect when Redis answers again: check before repeating it.`,
      { retryable: false, maybeApplied: true, timeoutMs: boundMs },
    );
  }
}
