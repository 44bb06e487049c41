import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Alerter } from '../alerts/alerter';
import { AppError } from '../errors/app-error';
import { silentLogger, type Logger } from '../logging/logger';
import { readyClient, type RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { fromHash, snippet, toHash, toSummary } from './webhook-codec';
import {
  deliveryRecordSchema,
  webhookCreateSchema,
  webhookIdSchema,
  webhookUpdateSchema,
  type DeliveryRecord,
  type Webhook,
  type WebhookCreateInput,
  type WebhookSummary,
  type WebhookUpdateInput,
  type WindowFailure,
} from './webhook-schema';
import { CREATE, RECORD_DELIVERY, UPDATE } from './webhook-scripts';

/** The auto-disable window (docs/requirements.md#background-workers: `maxFailures` in 24 h). */
export const FAILURE_WINDOW_MS = 24 * 3_600_000;

export interface WebhookStoreOptions {
  /** Raises `webhook_disabled` when a webhook is disabled automatically. */
  alerter?: Alerter;
  /** The application's job type that delivers the events (the alert names it); the runtime names none. */
  jobType?: string;
  logger?: Logger;
  /**
   * Delivery records kept per webhook, newest first; older ones are trimmed.
   * @defaultValue 1000
   */
  keepDeliveries?: number;
  /** The clock (tests move it). @defaultValue Date.now */
  now?: () => number;
}

export interface DeliveryOutcome {
  /** Failed deliveries of this webhook within the last 24 h, after this one. */
  failuresInWindow: number;
  /** This delivery's failure disabled the webhook. */
  disabled: boolean;
}

/**
 * The webhook registry in Redis: one hash per webhook, an index by creation time, a
 * capped list of delivery records and a sorted set of failure times per webhook.
 *
 * Auto-disable: every failed delivery attempt (no answer, or a non-2xx answer) lands in
 * a 24 h sliding window; when the window holds maxFailures the webhook is disabled with
 * its reason and an alert is raised. A success does not empty the window: an endpoint
 * that fails nine times in ten is broken, not healthy, and resetting on each success
 * would keep it enabled forever. Enabling a webhook by hand empties the window, so the
 * operator's fix starts from zero.
 */
export class WebhookStore {
  private readonly logger: Logger;
  private readonly keep: number;
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    private readonly opts: WebhookStoreOptions = {},
  ) {
    this.logger = opts.logger ?? silentLogger;
    this.keep = validate(z.number().int().min(1).max(100_000), opts.keepDeliveries ?? 1_000, 'keepDeliveries');
    this.now = opts.now ?? Date.now;
  }

  /** Registers a webhook; the secret and the id are generated when omitted. */
  async create(input: WebhookCreateInput): Promise<Webhook> {
    const data = validate(webhookCreateSchema, input, 'webhook');
    const now = this.now();
    const webhook: Webhook = {
      id: data.id ?? `wh_${randomBytes(12).toString('base64url')}`,
      url: data.url,
      ...(data.orgId ? { orgId: data.orgId } : {}),
      // 256 bits: far past what guessing or brute force can reach.
      secret: data.secret ?? randomBytes(32).toString('base64url'),
      enabled: data.enabled,
      maxFailures: data.maxFailures,
      description: data.description,
      ...(data.events ? { events: data.events } : {}),
      createdAt: now,
      updatedAt: now,
      ...(data.enabled ? {} : { disabledAt: now, disabledReason: 'created disabled' }),
    };
    const created = await CREATE.run(
      await this.client(),
      [this.hookKey(webhook.id), this.indexKey()],
      [JSON.stringify(toHash(webhook)), now, webhook.id],
    );
    if (created === 0) throw new AppError('CONFLICT', `A webhook with id "${webhook.id}" already exists`, { id: webhook.id });
    this.logger.info({ webhookId: webhook.id }, 'webhook created');
    return webhook;
  }

  /** The webhook with its secret, or undefined. */
  async find(id: string): Promise<Webhook | undefined> {
    const h = await (await this.client()).hgetall(this.hookKey(validate(webhookIdSchema, id, 'webhook id')));
    return h.id ? fromHash(h) : undefined;
  }

  /** The webhook with its secret; AppError NOT_FOUND when there is none. */
  async get(id: string): Promise<Webhook> {
    const webhook = await this.find(id);
    if (!webhook) throw notFound(id);
    return webhook;
  }

  /** One page of webhooks, oldest first, without secrets. */
  async list(opts: { offset?: number; limit?: number } = {}): Promise<{ items: WebhookSummary[]; total: number }> {
    const offset = Math.max(0, Math.trunc(opts.offset ?? 0));
    const limit = Math.min(Math.max(1, Math.trunc(opts.limit ?? 100)), 500);
    const redis = await this.client();
    const [ids, total] = await Promise.all([redis.zrange(this.indexKey(), offset, offset + limit - 1), redis.zcard(this.indexKey())]);
    const hashes = await Promise.all(ids.map((id) => redis.hgetall(this.hookKey(id))));
    const items = hashes.filter((h) => h.id).map((h) => toSummary(fromHash(h)));
    return { items, total };
  }

  /** Changes url, secret, maxFailures, description, owner or event filter; nothing changes when any is invalid. */
  async update(id: string, patch: WebhookUpdateInput): Promise<Webhook> {
    const data = validate(webhookUpdateSchema, patch, 'webhook update');
    const set: Record<string, string> = { updatedAt: String(this.now()) };
    const del: string[] = [];
    if (data.url !== undefined) set.url = data.url;
    if (data.secret !== undefined) set.secret = data.secret;
    if (data.maxFailures !== undefined) set.maxFailures = String(data.maxFailures);
    if (data.orgId !== undefined) {
      if (data.orgId) set.orgId = data.orgId;
      else del.push('orgId');
    }
    if (data.description !== undefined) {
      if (data.description) set.description = data.description;
      else del.push('description');
    }
    if (data.events !== undefined) {
      if (data.events) set.events = JSON.stringify(data.events);
      else del.push('events');
    }
    await this.write(id, set, del, false);
    return this.get(id);
  }

  /** Turns deliveries back on and empties the failure window. */
  async enable(id: string): Promise<Webhook> {
    await this.write(id, { enabled: '1', updatedAt: String(this.now()) }, ['disabledAt', 'disabledReason'], true);
    return this.get(id);
  }

  async disable(id: string, reason = 'disabled by an operator'): Promise<Webhook> {
    const text = validate(z.string().min(1).max(500), reason, 'disable reason');
    const now = String(this.now());
    await this.write(id, { enabled: '0', disabledAt: now, disabledReason: text, updatedAt: now }, [], false);
    return this.get(id);
  }

  /** Removes the webhook with its delivery records; false when there was none. */
  async delete(id: string): Promise<boolean> {
    const wid = validate(webhookIdSchema, id, 'webhook id');
    const results = await (await this.client())
      .multi()
      .del(this.hookKey(wid))
      .del(this.deliveriesKey(wid), this.failuresKey(wid))
      .zrem(this.indexKey(), wid)
      .exec();
    const [err, removed] = results?.[0] ?? [new Error('the delete transaction was discarded'), 0];
    if (err) throw err;
    return Number(removed) > 0;
  }

  /**
   * Appends one delivery attempt (the snippet cut to 1 KiB, the error to 2,000 characters), counts a failure in the
   * 24 h window, and disables the webhook when the window reaches maxFailures.
   */
  async recordDelivery(input: Omit<DeliveryRecord, 'at'> & { at?: number }): Promise<DeliveryOutcome> {
    const record = validate(
      deliveryRecordSchema,
      { ...input, at: input.at ?? this.now(), error: input.error?.slice(0, 2_000), responseSnippet: snippet(input.responseSnippet) },
      'delivery record',
    );
    const [count, disabledNow, max] = (await RECORD_DELIVERY.run(
      await this.client(),
      [this.hookKey(record.webhookId), this.deliveriesKey(record.webhookId), this.failuresKey(record.webhookId)],
      [
        JSON.stringify(record),
        this.keep,
        record.ok ? '1' : '0',
        record.at,
        FAILURE_WINDOW_MS,
        `${record.at}:${record.deliveryId}:${record.attempt}:${randomUUID()}`,
      ],
    )) as number[];
    if (count < 0) {
      this.logger.warn({ webhookId: record.webhookId }, 'delivery not recorded: the webhook no longer exists');
      return { failuresInWindow: 0, disabled: false };
    }
    if (disabledNow === 1) {
      this.opts.alerter?.raise({
        reason: 'webhook_disabled',
        type: this.opts.jobType,
        message: `Webhook ${record.webhookId} disabled after ${count} failed deliveries within 24 h`,
        fields: { webhookId: record.webhookId, failures: count, maxFailures: max, deliveryId: record.deliveryId },
      });
    }
    return { failuresInWindow: count, disabled: disabledNow === 1 };
  }

  /** One page of a webhook's delivery records, newest first. */
  async deliveries(webhookId: string, opts: { offset?: number; limit?: number } = {}): Promise<DeliveryRecord[]> {
    const id = validate(webhookIdSchema, webhookId, 'webhook id');
    const offset = Math.max(0, Math.trunc(opts.offset ?? 0));
    const limit = Math.min(Math.max(1, Math.trunc(opts.limit ?? 50)), 1_000);
    const rows = await (await this.client()).lrange(this.deliveriesKey(id), offset, offset + limit - 1);
    return rows.map((r) => JSON.parse(r) as DeliveryRecord);
  }

  /** Failed deliveries within the last 24 h. */
  async failureCount(webhookId: string): Promise<number> {
    const id = validate(webhookIdSchema, webhookId, 'webhook id');
    return (await this.client()).zcount(this.failuresKey(id), `(${this.now() - FAILURE_WINDOW_MS}`, '+inf');
  }

  /**
   * The failed attempts that count toward `maxFailures` now (those of the last 24 h),
   * newest first, at most `limit` of them, with how many there are in all.
   */
  async windowFailures(webhookId: string, opts: { limit?: number } = {}): Promise<{ count: number; failures: WindowFailure[] }> {
    const id = validate(webhookIdSchema, webhookId, 'webhook id');
    const limit = Math.min(Math.max(1, Math.trunc(opts.limit ?? 50)), 1_000);
    const from = `(${this.now() - FAILURE_WINDOW_MS}`;
    const redis = await this.client();
    const [members, count] = await Promise.all([
      redis.zrevrangebyscore(this.failuresKey(id), '+inf', from, 'LIMIT', 0, limit),
      redis.zcount(this.failuresKey(id), from, '+inf'),
    ]);
    return { count, failures: members.map(parseFailureMember) };
  }

  private async write(id: string, set: Record<string, string>, del: string[], clearFailures: boolean): Promise<void> {
    const wid = validate(webhookIdSchema, id, 'webhook id');
    const done = await UPDATE.run(
      await this.client(),
      [this.hookKey(wid), this.failuresKey(wid)],
      [JSON.stringify(set), JSON.stringify(del), clearFailures ? '1' : '0'],
    );
    if (done === 0) throw notFound(wid);
  }

  private hookKey(id: string): string {
    return this.keys.tagged('webhooks', 'hook', id);
  }
  private indexKey(): string {
    return this.keys.tagged('webhooks', 'index');
  }
  private deliveriesKey(id: string): string {
    return this.keys.tagged('webhooks', 'deliveries', id);
  }
  private failuresKey(id: string): string {
    return this.keys.tagged('webhooks', 'failures', id);
  }

  private client(): Promise<RedisClient> {
    return readyClient(this.redis);
  }
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new AppError('VALIDATION', `Invalid ${what}: ${z.prettifyError(r.error)}`, { issues: r.error.issues });
  }
  return r.data;
}

/** A window member is `<at>:<deliveryId>:<attempt>:<uuid>` (recordDelivery); a delivery id may hold colons. */
function parseFailureMember(member: string): WindowFailure {
  const first = member.indexOf(':');
  const rest = member.slice(first + 1);
  const parts = rest.split(':');
  const attempt = Number(parts[parts.length - 2]);
  return {
    at: Number(member.slice(0, first)),
    deliveryId: parts.slice(0, -2).join(':'),
    attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : 1,
  };
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No webhook with id "${id}"`, { id });
}
