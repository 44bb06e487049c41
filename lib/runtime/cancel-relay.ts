import { Relay, type RelayMessage } from 'bullmq';
import { z } from 'zod';
import type { Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';

/** What one cancel asks: stop job `jobId` of `queue`, on behalf of `by`. */
export interface CancelRequest {
  queue: string;
  jobId: string;
  /** Who asked (a dashboard user's name): the job's failedReason names them. */
  by: string;
}

const requestSchema = z.object({
  queue: z.string().min(1).max(64),
  jobId: z.string().min(1).max(256),
  by: z.string().min(1).max(200),
});

/** The relay namespace of the runtime's cancels: its keys are `<root>::relay:{cancel}:…`, one cluster slot. */
const NAMESPACE = 'cancel';
/** Every queue's cancel topic, as BullMQ's Relay guide names them (`jobs.<queue>.cancel`). */
const EVERY_QUEUE = 'jobs.*.cancel';

/** A queue name as one topic segment: job type names may hold `.`, which would add a level. */
function topicOf(queue: string): string {
  return `jobs.${encodeURIComponent(queue).replace(/[.!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}.cancel`;
}

/**
 * Carries cancel requests from whoever asks (the dashboard) to every worker process,
 * on BullMQ's Relay (docs/decisions/0011-cancel-over-the-relay.md): each worker process
 * is one relay node with one subscription, for every queue, so a job costs nothing more
 * to run; the process running the job stops it (worker-pool.ts), the others find
 * nothing to stop. BullMQ's own `worker.cancelJob` reaches only the process it is
 * called in, and only for processors that take a signal parameter, which costs an
 * AbortController per job.
 *
 * The relay node (two connections, a heartbeat every 10 s) starts on first use.
 */
export class CancelRelay {
  private relay?: Relay;

  constructor(
    private readonly opts: {
      connection: RedisClient;
      keys: Keyspace;
      logger: Logger;
      /** Shown by BullMQ's relay getters: the process's name. */
      name?: string;
    },
  ) {}

  private node(): Relay {
    if (!this.relay) {
      this.relay = new Relay({ connection: this.opts.connection, prefix: this.opts.keys.root, namespace: NAMESPACE, name: this.opts.name });
      // Connection errors are the outage log's (lib/logging/outage-log.ts); the relay retries its reads and heartbeats.
      this.relay.on('error', (err) => this.opts.logger.warn({ err, connection: 'redis', component: 'cancel-relay' }, 'cancel relay error'));
    }
    return this.relay;
  }

  /** A worker process: `onCancel` is called with each request, for any queue (one subscription per process). */
  async listen(onCancel: (request: CancelRequest) => void): Promise<void> {
    await this.node().subscribe(EVERY_QUEUE, (message: RelayMessage) => {
      const request = requestSchema.safeParse(message.data);
      if (!request.success) {
        this.opts.logger.warn({ topic: message.topic }, 'ignored a malformed cancel request');
        return;
      }
      onCancel(request.data);
    });
  }

  /** Sends `request` to every worker process listening; resolves with how many it reached. */
  async request(request: CancelRequest): Promise<number> {
    const { nodes } = await this.node().publish(topicOf(request.queue), requestSchema.parse(request));
    return nodes;
  }

  /** Leaves the relay (its subscription goes with it). */
  async close(): Promise<void> {
    await this.relay?.close();
    this.relay = undefined;
  }
}
