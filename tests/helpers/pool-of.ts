import type { Bullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import type { HandlerMap } from '@/lib/runtime/handler';
import { WorkerPool, type WorkerPoolOptions } from '@/lib/runtime/worker-pool';

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
