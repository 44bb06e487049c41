/**
 * Key layout. Every BullMQ queue gets its own hash tag (`bullpen:{webhook-dispatch}`)
 * so a Redis Cluster spreads queues over its shards while each queue's Lua scripts
 * still touch one slot. Bullpen's own multi-key structures (DLQ, schedules, ...) get
 * one tag per structure for the same reason.
 */
/**
 * The hash tags of the runtime's own structures (`<root>:{dlq}:…`): none is a queue, and
 * no queue reference may resolve into one (dashboard/queues/queue-ref.ts). Every literal tag
 * lib/ passes to `tagged` is listed (tests/unit/runtime-tags.test.ts keeps it so).
 */
export const RUNTIME_TAGS: ReadonlySet<string> = new Set([
  'alerts',
  'audit',
  'auth',
  'dashboard',
  'dlq',
  'idem',
  'schedules',
  'webhooks',
  'workers',
]);

export class Keyspace {
  constructor(readonly root: string) {
    if (!/^[A-Za-z0-9_.:-]+$/.test(root)) {
      throw new Error(`Key prefix "${root}" may hold letters, digits and _ . : - only`);
    }
  }

  /** The BullMQ `prefix` option for one queue. */
  queuePrefix(queue: string): string {
    return `${this.root}:{${queue}}`;
  }

  /** A key under a hash tag of its own: all keys of one `tag` share a cluster slot. */
  tagged(tag: string, ...parts: Array<string | number>): string {
    return [`${this.root}:{${tag}}`, ...parts].join(':');
  }
}
