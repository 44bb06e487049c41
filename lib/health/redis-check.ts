import type { RedisClient } from '../redis/connection';
import type { CheckOutcome } from './check-outcome';
import { redisLatencyStatus } from './health-rules';

/**
 * PING round trip on the shared producer connection. That connection has no offline
 * queue, so a Redis that is down fails at once; one that hangs is cut by the
 * checker's time limit. Either way the checker reports unhealthy.
 */
export async function checkRedis(redis: RedisClient, degradedMs: number): Promise<CheckOutcome> {
  const started = performance.now();
  const reply = await redis.ping();
  const latencyMs = performance.now() - started;
  if (reply !== 'PONG') throw new Error('unexpected PING reply');
  return {
    status: redisLatencyStatus(latencyMs, degradedMs),
    latencyMs,
    details: { pingMs: Math.round(latencyMs * 10) / 10, degradedAtMs: degradedMs },
  };
}
