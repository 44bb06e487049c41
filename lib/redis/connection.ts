import { type ChainableCommander, Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config';
import { AppError } from '../errors/app-error';
import { embeddedRedisPassword } from './embedded-password';

/** A Redis client as Bullpen uses it: a single node or a cluster. */
export type RedisClient = Redis | Cluster;
/** A MULTI or pipeline being built on a RedisClient (`redis.multi()`), for stores that add their commands to one. */
export type RedisPipeline = ChainableCommander;

/**
 * Who a connection serves (docs/decisions/0006-connection-roles.md):
 * - `worker`: BullMQ workers block on BZPOPMIN and must never give up a command,
 *   hence `maxRetriesPerRequest: null`.
 * - `resilient`: everything else that runs inside the worker process (handlers' stores,
 *   the dead-letter sink, webhooks, idempotency, usage): commands wait in the offline
 *   queue through a Redis restart and fail only after RESILIENT_RETRIES reconnections
 *   (about 10 s), so a blip delays a job instead of failing it, and nothing hangs forever.
 * - `producer`: the dashboard and dispatchers fail fast while Redis is down rather
 *   than queueing commands in memory (`enableOfflineQueue: false`).
 */
export type ConnectionRole = 'worker' | 'resilient' | 'producer';

/** Reconnections a `resilient` command waits through: ioredis waits min(n·50, 2000) ms before the n-th, ~10 s for 20. */
export const RESILIENT_RETRIES = 20;

export interface RedisTarget {
  url?: string;
  clusterNodes?: string[];
  host?: string;
  port?: number;
  /** The embedded server's requirepass (lib/redis/embedded-password.ts). */
  password?: string;
}

/** Where Redis is: the cluster, REDIS_URL, or the embedded server with the password from the data directory. */
export function redisTarget(config: Config): RedisTarget {
  if (config.REDIS_CLUSTER_NODES) return { clusterNodes: config.REDIS_CLUSTER_NODES };
  if (config.REDIS_URL) return { url: config.REDIS_URL };
  return { host: '127.0.0.1', port: config.BULLPEN_REDIS_PORT, password: embeddedRedisPassword(config.dataDir) };
}

export function createRedis(target: RedisTarget, role: ConnectionRole): RedisClient {
  const options: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : role === 'resilient'
        ? { maxRetriesPerRequest: RESILIENT_RETRIES, enableOfflineQueue: true, enableReadyCheck: true, connectTimeout: 5_000 }
        : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 };
  if (target.clusterNodes) {
    return new Cluster(
      target.clusterNodes.map((n) => {
        const [host, p] = n.split(':');
        return { host, port: Number(p) };
      }),
      {
        redisOptions: options,
        // Producers still need the slot map before their first command.
        enableOfflineQueue: role !== 'producer',
      },
    );
  }
  if (target.url) return new Redis(target.url, options);
  return new Redis({ host: target.host, port: target.port, password: target.password, ...options });
}

/** Resolves once the client is ready (producers have no offline queue to wait in). */
/**
 * The one readiness gate of every Redis client: resolves with the client once it is
 * connected (at once when it already is). The producer connection has no offline queue,
 * so a service waits here before its first command instead of failing it. Rejects with
 * AppError UNAVAILABLE when the client is not ready within `timeoutMs` or closes first.
 */
export async function readyClient<C extends RedisClient>(client: C, timeoutMs = 10_000): Promise<C> {
  if (client.status === 'ready') return client;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new AppError('UNAVAILABLE', `Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(new AppError('UNAVAILABLE', 'Redis connection closed before it was ready'));
    };
    const cleanup = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('end', onEnd);
    };
    client.on('ready', onReady);
    client.on('end', onEnd);
  });
  return client;
}
