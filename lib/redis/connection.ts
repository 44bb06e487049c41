import { type ChainableCommander, Cluster, type ClusterOptions, Command, Redis, type RedisOptions } from 'ioredis';
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
 *   than queueing commands in memory (`enableOfflineQueue: false`); a command that
 *   Redis does not answer fails after PRODUCER_COMMAND_TIMEOUT_MS, and one in flight
 *   when the connection dropped is not re-sent when it comes back. Every BullMQ Queue
 *   of the dashboard shares this connection (lib/jobs/queues.ts).
 */
export type ConnectionRole = 'worker' | 'resilient' | 'producer';

/**
 * The longest a `producer` command waits for its answer. A backstop for reads: the
 * dashboard's changes are bounded tighter by lib/redis/guarded-write.ts, dispatches by
 * BULLPEN_DISPATCH_TIMEOUT_MS. Every call of the dashboard's is bounded in work (one
 * page, one batch), so a healthy Redis answers far inside it.
 */
export const PRODUCER_COMMAND_TIMEOUT_MS = 10_000;

/** Reconnections a `resilient` command waits through: ioredis waits min(n·50, 2000) ms before the n-th, ~10 s for 20. */
export const RESILIENT_RETRIES = 20;

/**
 * How long, at least, a `worker` or `resilient` command on a Redis Cluster waits for the
 * cluster to fail a lost master over to its replica before it gives up. A failover takes
 * about the nodes' `cluster-node-timeout` (Redis's default: 15 s) plus an election of a
 * second or two; until it is done the dead master's slots answer nothing, and for the last
 * moments every master answers CLUSTERDOWN (docs/scaling.md, "Failover").
 */
export const CLUSTER_FAILOVER_WAIT_MS = 30_000;
/** The pause before a command retries after CLUSTERDOWN, TRYAGAIN or a closed node connection. */
const CLUSTER_RETRY_DELAY_MS = 250;

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
        : {
            maxRetriesPerRequest: 1,
            enableOfflineQueue: false,
            connectTimeout: 5_000,
            // A hung Redis keeps the socket open: without a timeout a command waits for ever.
            commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS,
            // A command in flight when the connection dropped is never sent again on reconnect:
            // its caller was told it failed, and it must not land later.
            autoResendUnfulfilledCommands: false,
          };
  if (target.clusterNodes) {
    return new Cluster(
      target.clusterNodes.map((n) => {
        const [host, p] = n.split(':');
        return { host, port: Number(p) };
      }),
      { redisOptions: options, ...clusterOptions(role) },
    );
  }
  const client = target.url
    ? new Redis(target.url, options)
    : new Redis({ host: target.host, port: target.port, password: target.password, ...options });
  if (role === 'producer') holdUntilFirstReady(client, FIRST_READY_WAIT_MS);
  return client;
}

/** How long a `producer` command sent before the connection's first `ready` waits for it. */
export const FIRST_READY_WAIT_MS = 5_000;

/**
 * The readiness gate inside the connection. Without an offline queue, a command sent while
 * a new connection still opens (the TCP connect, AUTH, the INFO ready check) fails with
 * "Stream isn't writeable", so every caller had to remember `readyClient` first, and one
 * that forgot failed at random under load (a page read, a session check, a test's first
 * command). Until the connection has been ready once, a command is held here, outside
 * ioredis, and sent at `ready`; one still held after `waitMs` is rejected and never sent,
 * so nothing lands late. After the first `ready` the connection fails fast as before: a
 * reconnect is an outage, which its callers bound themselves (lib/redis/redis-bound.ts).
 */
function holdUntilFirstReady(client: Redis, waitMs: number): void {
  const send = client.sendCommand.bind(client);
  let opened = false;
  const firstReady = new Promise<void>((resolve) =>
    client.once('ready', () => {
      opened = true;
      resolve();
    }),
  );
  client.sendCommand = (command, stream) => {
    // ioredis's own handshake (AUTH, the INFO ready check, CLIENT SETNAME) runs before `ready`.
    const handshake = client.status === 'connect' && Command.checkFlag('HANDSHAKE_COMMANDS', command.name);
    if (opened || handshake || client.status === 'end') return send(command, stream);
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      command.reject(new AppError('UNAVAILABLE', `Redis not ready after ${waitMs} ms`));
    }, waitMs);
    void firstReady.then(() => {
      clearTimeout(timer);
      if (!expired) send(command, stream);
    });
    return command.promise;
  };
}

/**
 * A cluster's own retry rules per role. ioredis retries a command that met a closed node
 * connection (its master was lost), CLUSTERDOWN or TRYAGAIN after a pause, refreshing the
 * slot map, and counts each retry and each MOVED against `maxRedirections`. Its defaults
 * (16, 100 ms apart) give up after about 1.6 s, well inside any failover, and BullMQ treats
 * "Too many Cluster redirections" as a real error: lock renewals fail, a handler's store
 * write fails and spends one of the job's attempts. So inside the worker a command waits
 * CLUSTER_FAILOVER_WAIT_MS at least (each pause costs one or two redirections: one MOVED to
 * the dead master, one closed connection). Producers keep ioredis's default retries: the
 * dashboard answers an error for the failover's few seconds, then carries on by itself.
 */
function clusterOptions(role: ConnectionRole): ClusterOptions {
  // Producers still need the slot map before their first command. They skip the
  // CLUSTER INFO check too: BullMQ counts a cluster client in the `connect` status (slot
  // map loaded, check pending) as ready and sends INFO to it, which a client without an
  // offline queue refuses ("Cluster isn't ready"), leaving that Queue broken for good.
  // Without the check `connect` turns into `ready` in the same tick; a command sent while
  // the cluster is down gets CLUSTERDOWN and fails within ioredis's retries, as before.
  if (role === 'producer') return { enableOfflineQueue: false, enableReadyCheck: false };
  return {
    enableOfflineQueue: true,
    // No CLUSTER INFO check before `ready`: a (re)connect that meets the cluster down,
    // as during a failover, otherwise leaves the promise of ioredis's connect() pending
    // for ever (it reconnects, but that promise never settles). BullMQ awaits exactly
    // that promise when its watchdog resets a blocking connection, and the worker of an
    // idle queue stopped fetching for good. Commands sent while the cluster is down get
    // CLUSTERDOWN and wait below, so nothing runs early.
    enableReadyCheck: false,
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    maxRedirections: 2 * Math.ceil(CLUSTER_FAILOVER_WAIT_MS / CLUSTER_RETRY_DELAY_MS),
  };
}

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
