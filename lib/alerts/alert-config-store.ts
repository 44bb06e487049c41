import { AppError } from '../errors/app-error';
import type { RedisClient } from '../redis/connection';
import { type AlertChannel, type ChannelInput, type ChannelView, channelSchema, viewChannel } from './alert-channel';
import type { AlertKeys } from './alert-keys';
import { type AlertRules, type AlertRulesPatch, alertRulesPatchSchema, DEFAULT_ALERT_RULES, patchRules } from './alert-rules';

/** A deployment's channels are a handful; the cap keeps a round's fan-out bounded. */
export const MAX_CHANNELS = 20;

/**
 * The admins' alerting setup in Redis: the rules' thresholds and the channels. Channels
 * are stored whole (their secrets too) for the evaluating worker; everything else reads
 * them through `views()`, which shows only that a secret is set.
 */
export class AlertConfigStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: AlertKeys,
  ) {}

  /**
   * The rules: the stored thresholds over the defaults, so a rule added in a later version
   * starts at its default (a stored document that no longer parses falls back to them).
   */
  async rules(): Promise<AlertRules> {
    const raw = await this.redis.get(this.keys.rules);
    if (!raw) return DEFAULT_ALERT_RULES;
    const parsed = alertRulesPatchSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) return DEFAULT_ALERT_RULES;
    try {
      return patchRules(DEFAULT_ALERT_RULES, parsed.data);
    } catch {
      return DEFAULT_ALERT_RULES;
    }
  }

  /** Applies `patch` to the rules; returns the rules before and after (the audit records both). */
  async updateRules(patch: AlertRulesPatch): Promise<{ before: AlertRules; after: AlertRules }> {
    const before = await this.rules();
    const after = patchRules(before, patch);
    await this.redis.set(this.keys.rules, JSON.stringify(after));
    return { before, after };
  }

  /** Every channel with its secrets: for the evaluating worker only. */
  async channels(): Promise<AlertChannel[]> {
    const all = await this.redis.hgetall(this.keys.channels);
    const out: AlertChannel[] = [];
    for (const json of Object.values(all)) {
      const parsed = channelSchema.safeParse(JSON.parse(json));
      if (parsed.success) out.push(parsed.data);
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  async channel(id: string): Promise<AlertChannel | null> {
    const json = await this.redis.hget(this.keys.channels, id);
    if (!json) return null;
    const parsed = channelSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  }

  /** Every channel as anyone may see it. */
  async views(): Promise<ChannelView[]> {
    return (await this.channels()).map(viewChannel);
  }

  /**
   * Adds or replaces a channel. A secret left empty in an edit (the form never shows the
   * stored one) keeps the stored value, so an admin can rename a channel without
   * knowing its URL.
   */
  async saveChannel(input: ChannelInput, opts: { keepSecrets?: boolean } = {}): Promise<ChannelView> {
    const existing = await this.channel(input.id);
    const merged = opts.keepSecrets && existing ? keepSecrets(input, existing) : input;
    const channel = channelSchema.parse(merged);
    if (!existing && (await this.redis.hlen(this.keys.channels)) >= MAX_CHANNELS) {
      throw new AppError('CONFLICT', `At most ${MAX_CHANNELS} channels; remove one first`);
    }
    await this.redis.hset(this.keys.channels, channel.id, JSON.stringify(channel));
    return viewChannel(channel);
  }

  /** Removes a channel; false when there was none. */
  async removeChannel(id: string): Promise<boolean> {
    const removed = await this.redis.hdel(this.keys.channels, id);
    await this.redis.hdel(this.keys.channelStatus, id);
    return removed === 1;
  }
}

/** `input` with the stored secrets of `existing` where `input` leaves them empty and points at the same kind. */
function keepSecrets(input: ChannelInput, existing: AlertChannel): ChannelInput {
  const t = input.target as Record<string, unknown>;
  const e = existing.target as Record<string, unknown>;
  if (t.kind !== e.kind) return input;
  const target = { ...t };
  for (const k of ['url', 'secret', 'password']) if ((target[k] === undefined || target[k] === '') && e[k] !== undefined) target[k] = e[k];
  return { ...input, target: target as ChannelInput['target'] };
}
