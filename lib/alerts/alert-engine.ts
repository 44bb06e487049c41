import { randomUUID } from 'node:crypto';
import { withTimeLimit } from '../health/time-limit';
import type { Logger } from '../logging/logger';
import type { RedisClient } from '../redis/connection';
import { Lease } from '../redis/lease';
import { startPeriodic } from '../runtime/periodic';
import { type AlertChannel, channelSecrets, redact } from './alert-channel';
import { evaluateConditions } from './alert-conditions';
import type { AlertConfigStore } from './alert-config-store';
import type { AlertKeys } from './alert-keys';
import { type AlertMessage, messageOf } from './alert-message';
import type { AlertObserver } from './alert-observer';
import { type AlertEvent, type FiringAlert, planRound } from './alert-plan';
import { type AlertRules, DEFAULT_ALERT_RULES } from './alert-rules';
import type { AlertStateStore, OutboxItem } from './alert-state-store';
import type { ChannelSender } from './channels/channel-sender';

/** Sends of one message to one channel before it is dropped (about 17 minutes of backoff). */
export const MAX_DELIVERY_ATTEMPTS = 10;
/** The first retry's delay; each next one doubles, up to DELIVERY_BACKOFF_CAP_MS. */
export const DELIVERY_BACKOFF_MS = 1_000;
export const DELIVERY_BACKOFF_CAP_MS = 5 * 60_000;
/** Outbox items sent per round; the rest wait for the next one. */
const DELIVERIES_PER_ROUND = 20;
/** How long the lease check and the reachability probe may wait for Redis. */
const REDIS_PROBE_MS = 2_000;

export type DeliveryOutcome = 'ok' | 'failed' | 'dropped';

export interface AlertEngineOptions {
  redis: RedisClient;
  keys: AlertKeys;
  config: AlertConfigStore;
  state: AlertStateStore;
  observer: AlertObserver;
  sender: ChannelSender;
  logger: Logger;
  /** This process's name in the lease (the worker pool's). */
  owner: string;
  /** The base of the links in messages (BULLPEN_DASHBOARD_URL); none: the dashboard's paths. */
  dashboardUrl?: string;
  /** Counts each send in /metrics. */
  onDelivery?: (kind: AlertChannel['target']['kind'], outcome: DeliveryOutcome) => void;
  /** How long the lease outlives a holder killed with -9. @defaultValue 15000 */
  leaseTtlMs?: number;
  now?: () => number;
}

/** The delay before retry number `attempts` (1-based). */
export function deliveryBackoff(attempts: number): number {
  return Math.min(DELIVERY_BACKOFF_MS * 2 ** (attempts - 1), DELIVERY_BACKOFF_CAP_MS);
}

/**
 * Evaluates the rules and feeds the channels, in one worker at a time: each round, the
 * process holding the lease (as the schedules' upserts hold theirs) reads what the rules
 * compare, plans the transitions against the firing state in Redis, commits the new state
 * with its one message per channel, and sends what the outbox holds. Redis unreachable is
 * the one rule evaluated from memory: the last holder tells the channels it cached.
 */
export class AlertEngine {
  private readonly lease: Lease;
  private readonly now: () => number;
  /** This process held the lease at its last round that reached Redis. */
  private holder = false;
  private rules: AlertRules = DEFAULT_ALERT_RULES;
  private channels: AlertChannel[] = [];
  private unreachableSince: number | undefined;
  /** The redis-down alert, once it was sent (its channels), until Redis answers again. */
  private redisDown: { alert: FiringAlert; told: Set<string> } | undefined;

  constructor(private readonly opts: AlertEngineOptions) {
    this.lease = new Lease(opts.redis, opts.keys.lease, { ttlMs: opts.leaseTtlMs ?? 15_000 });
    this.now = opts.now ?? Date.now;
  }

  /** Runs a round every `intervalMs`; the returned stop waits for one under way and frees the lease. */
  start(intervalMs: number): () => Promise<void> {
    const stop = startPeriodic(intervalMs, () => this.round());
    return async () => {
      await stop();
      if (this.holder) await withTimeLimit(this.lease.release(this.opts.owner), REDIS_PROBE_MS, 'alert lease release').catch(() => false);
    };
  }

  /** One round; never throws (a failed round is logged and the next one tries again). */
  async round(): Promise<void> {
    try {
      const taken = (await withTimeLimit(this.lease.tryAcquire(this.opts.owner), REDIS_PROBE_MS, 'alert lease')) === null;
      await this.reachable();
      this.holder = taken;
      if (!taken) return;
      await this.evaluate();
      await this.deliver();
    } catch (err) {
      if (await this.redisAnswers()) this.opts.logger.warn({ err }, 'alert round failed; the next one tries again');
      else await this.unreachable();
    }
  }

  private async evaluate(): Promise<void> {
    const { config, state, observer } = this.opts;
    const now = this.now();
    [this.rules, this.channels] = await Promise.all([config.rules(), config.channels()]);
    const [observation, firing, acks, silences] = await Promise.all([
      observer.observe(this.rules, now),
      state.firing(),
      state.acknowledgements(),
      state.silences(now),
    ]);
    const plan = planRound({
      firing,
      conditions: evaluateConditions(this.rules, observation),
      now,
      repeatMs: this.rules.repeatSeconds * 1_000,
      acknowledged: new Set(acks.keys()),
      silences,
    });
    const items = plan.events.length ? this.itemsFor(messageOf(randomUUID(), now, plan.events, this.opts.dashboardUrl), now) : [];
    await state.commit(plan, items, now);
    if (plan.events.length) {
      this.opts.logger.info({ alerts: plan.events.map((e) => `${e.kind} ${e.alert.key}`), channels: items.length }, 'alerts changed');
    }
  }

  private itemsFor(message: AlertMessage, now: number): OutboxItem[] {
    return this.channels
      .filter((c) => c.enabled)
      .map((c) => ({ id: `${message.id}:${c.id}`, channelId: c.id, message, attempts: 0, createdAt: now }));
  }

  /** Sends what is due, each item once; a failure is retried at a later round with backoff. */
  private async deliver(): Promise<void> {
    const { state } = this.opts;
    const due = await state.due(this.now(), DELIVERIES_PER_ROUND);
    const byId = new Map(this.channels.map((c) => [c.id, c]));
    await Promise.all(
      due.map(async (item) => {
        const channel = byId.get(item.channelId);
        // A channel removed or turned off since: its messages have nobody to go to.
        if (!channel?.enabled) return state.done(item.id);
        const error = await this.send(channel, item.message);
        const at = this.now();
        if (error === undefined) {
          await state.done(item.id);
          await state.recordDelivery(channel.id, { ok: true, at });
          return;
        }
        const attempts = item.attempts + 1;
        const dropped = attempts >= MAX_DELIVERY_ATTEMPTS;
        if (dropped) await state.done(item.id);
        else await state.retryAt({ ...item, attempts }, at + deliveryBackoff(attempts));
        await state.recordDelivery(channel.id, { ok: false, at, error, dropped });
        if (dropped) this.opts.onDelivery?.(channel.target.kind, 'dropped');
        this.opts.logger.warn({ channel: channel.id, kind: channel.target.kind, attempts, dropped, error }, 'alert channel failed');
      }),
    );
  }

  /** Sends once; undefined when it went, else the failure's message with the channel's secrets taken out. */
  private async send(channel: AlertChannel, message: AlertMessage): Promise<string | undefined> {
    try {
      await this.opts.sender.send(channel, message);
      this.opts.onDelivery?.(channel.target.kind, 'ok');
      return undefined;
    } catch (err) {
      this.opts.onDelivery?.(channel.target.kind, 'failed');
      return redact(err instanceof Error ? err.message : String(err), channelSecrets(channel));
    }
  }

  private async redisAnswers(): Promise<boolean> {
    return withTimeLimit(this.opts.redis.ping(), REDIS_PROBE_MS, 'alert redis probe').then(
      () => true,
      () => false,
    );
  }

  /** Redis answered: a redis-down alert this process sent resolves. */
  private async reachable(): Promise<void> {
    this.unreachableSince = undefined;
    const down = this.redisDown;
    if (!down) return;
    this.redisDown = undefined;
    await this.tellDirectly({ kind: 'resolved', alert: down.alert }, down.told);
  }

  /** Redis did not answer: after the rule's seconds, the last holder tells its cached channels. */
  private async unreachable(): Promise<void> {
    const now = this.now();
    this.unreachableSince ??= now;
    const rule = this.rules.redisDown;
    if (!this.holder || !rule.enabled || now - this.unreachableSince < rule.seconds * 1_000) return;
    this.redisDown ??= {
      alert: {
        key: 'redisDown',
        rule: 'redisDown',
        value: Math.round((now - this.unreachableSince) / 1_000),
        summary: `The alerting worker has had no answer from Redis for ${rule.seconds} s: jobs are not picked up`,
        path: '/health',
        since: this.unreachableSince,
        lastSentAt: now,
      },
      told: new Set(),
    };
    const untold = new Set(this.channels.filter((c) => c.enabled && !this.redisDown?.told.has(c.id)).map((c) => c.id));
    const told = await this.tellDirectly({ kind: 'firing', alert: this.redisDown.alert }, untold);
    for (const id of told) this.redisDown.told.add(id);
  }

  /** Sends one event to the given channels without the outbox (Redis may be away); returns those it reached. */
  private async tellDirectly(event: AlertEvent, channelIds: ReadonlySet<string>): Promise<string[]> {
    const message = messageOf(randomUUID(), this.now(), [event], this.opts.dashboardUrl);
    const channels = this.channels.filter((c) => channelIds.has(c.id));
    const sent = await Promise.all(channels.map(async (c) => ((await this.send(c, message)) === undefined ? c.id : undefined)));
    return sent.filter((id): id is string => id !== undefined);
  }
}
