import type { Keyspace } from '../redis/keys';

/**
 * Every alerting key lives under one hash tag, `<root>:{alerts}`, so one MULTI writes a
 * round's new state and its outbox together on a Redis Cluster too.
 */
export class AlertKeys {
  private readonly base: string;

  constructor(keys: Keyspace) {
    this.base = keys.tagged('alerts');
  }

  /** The rules' thresholds, one JSON document. */
  get rules(): string {
    return `${this.base}:rules`;
  }
  /** Channel id → the channel as JSON, secrets included. */
  get channels(): string {
    return `${this.base}:channels`;
  }
  /** Channel id → its delivery status (last success, last failure, failures in a row). */
  get channelStatus(): string {
    return `${this.base}:channel-status`;
  }
  /** Alert key → the firing alert as JSON. */
  get firing(): string {
    return `${this.base}:firing`;
  }
  /** The latest resolved alerts, newest first (a capped list). */
  get resolved(): string {
    return `${this.base}:resolved`;
  }
  /** Alert key → who acknowledged it and when; cleared when it resolves. */
  get acks(): string {
    return `${this.base}:acks`;
  }
  /** Alert key → until when (ms) it sends nothing. */
  get silences(): string {
    return `${this.base}:silences`;
  }
  /** Outbox item id → the item as JSON: one message for one channel. */
  get outbox(): string {
    return `${this.base}:outbox`;
  }
  /** Outbox item ids scored by when they are next due. */
  get outboxDue(): string {
    return `${this.base}:outbox-due`;
  }
  /** The lease of the one worker that evaluates the rules. */
  get lease(): string {
    return `${this.base}:lease`;
  }
}
