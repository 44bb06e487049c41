import { shippedApp } from '@/jobs/shipped-app';
import { type Bullpen, type BullpenOptions, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import type { HandlerMap } from '@/lib/runtime/handler';
import { WorkerPool, type WorkerPoolOptions } from '@/lib/runtime/worker-pool';
import { uniquePrefix } from './redis';

/** A Bullpen for the shipped application's job table on the test's redis-server under a unique prefix, with quiet logs. */
export function makeBullpen(redis: EmbeddedRedis, overrides: Partial<BullpenOptions> & { env?: Record<string, string> } = {}): Bullpen {
  const { env, ...opts } = overrides;
  return createBullpen({
    ...shippedApp,
    config: loadConfig({ BULLPEN_DATA_DIR: '.data/test', LOG_LEVEL: 'silent', ...env }),
    redis: { host: '127.0.0.1', port: redis.port },
    prefix: uniquePrefix(),
    logger: silentLogger,
    ...opts,
  });
}

/**
 * A worker pool over `bullpen` as a worker process builds one (its worker connection, keys,
 * job table, DLQ and alerter; quiet logs), running `handlers`; `overrides` change any
 * option. Not started.
 */
export function poolOf(bullpen: Bullpen, handlers: HandlerMap, overrides: Partial<WorkerPoolOptions> = {}): WorkerPool {
  return new WorkerPool({
    connection: bullpen.workerConnection(),
    keys: bullpen.keys,
    jobs: bullpen.jobs,
    handlers,
    sink: bullpen.dlq,
    alerter: bullpen.alerter,
    logger: silentLogger,
    maxPayloadBytes: bullpen.config.BULLPEN_MAX_PAYLOAD_BYTES,
    ...overrides,
  });
}
