import type { Keyspace } from '../redis/keys';
import type { DeadLetterStatus } from './dead-letter-id';

/**
 * Every DLQ key lives under one hash tag, `<root>:{dlq}`, so the Lua scripts that touch
 * an entry and all its indexes run in one Redis Cluster slot. The scripts derive index
 * key names from an entry's fields with the same layout (see `base` and scripts.ts),
 * which is how BullMQ's own scripts reach a job's keys; the tag keeps that legal.
 */
export class DlqKeys {
  /** `<root>:{dlq}`: what the Lua scripts prepend to the names below. */
  readonly base: string;

  constructor(keys: Keyspace) {
    this.base = keys.tagged('dlq');
  }

  entry(id: string): string {
    return `${this.base}:e:${id}`;
  }

  /** Every entry, scored by failedAt. */
  get all(): string {
    return `${this.base}:i:all`;
  }

  byType(type: string): string {
    return `${this.base}:i:type:${type}`;
  }

  byTenant(orgId: string): string {
    return `${this.base}:i:tenant:${orgId}`;
  }

  byErrorClass(errorClass: string): string {
    return `${this.base}:i:class:${errorClass}`;
  }

  byStatus(status: DeadLetterStatus): string {
    return `${this.base}:i:status:${status}`;
  }

  /** Bumped by every write; part of the name of cached intersections, so none is stale. */
  get version(): string {
    return `${this.base}:ver`;
  }

  /** Set while the pending count is at or above the alert threshold and the alert was raised. */
  get thresholdAlerted(): string {
    return `${this.base}:alerted`;
  }

  /** A cached intersection of several indexes. */
  intersection(hash: string): string {
    return `${this.base}:tmp:${hash}`;
  }
}
