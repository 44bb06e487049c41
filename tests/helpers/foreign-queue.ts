import { Queue } from 'bullmq';
import IORedis from 'ioredis';

/**
 * Another service's queue `name` under `prefix` on the test server, held as its own
 * producers hold it: a plain BullMQ Queue on a connection of its own. Its close goes into
 * `open`, which the test file's afterEach runs.
 */
export function foreignQueue(
  port: number,
  prefix: string,
  name: string,
  open: Array<() => Promise<unknown>>,
): { connection: IORedis; queue: Queue } {
  const connection = new IORedis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix });
  open.push(
    async () => connection.disconnect(),
    () => queue.close(),
  );
  return { connection, queue };
}
