import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { FULL_JITTER } from './backoff';
import { jobType, RETENTION, priorityNumber, type JobTypeName } from './registry';

/**
 * The BullMQ Queue of each job type, created on first use and reused: a Queue holds a
 * connection and loaded scripts, so one per type per process is the right number.
 */
export class QueueRegistry {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: RedisClient,
    private readonly keys: Keyspace,
  ) {}

  get(type: JobTypeName): Queue {
    let q = this.queues.get(type);
    if (!q) {
      q = new Queue(type, {
        connection: this.connection,
        prefix: this.keys.queuePrefix(type),
        defaultJobOptions: defaultJobOptions(type),
      });
      // Errors surface on the calls that hit them; an unhandled 'error' would crash.
      q.on('error', () => undefined);
      this.queues.set(type, q);
    }
    return q;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}

/** The registry's defaults as BullMQ job options. */
export function defaultJobOptions(type: JobTypeName): JobsOptions {
  const def = jobType(type);
  return {
    attempts: def.attempts,
    backoff:
      def.backoff.type === 'fixed' ? { type: 'fixed', delay: def.backoff.delayMs } : { type: FULL_JITTER, delay: def.backoff.delayMs },
    priority: priorityNumber(def.priority),
    removeOnComplete: { count: RETENTION.completed },
    removeOnFail: { count: RETENTION.failed },
  };
}
