import { z } from 'zod';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';

/**
 * An operator's change to a schedule. Only the fields given differ from the code's
 * default; the override wins over the default at every boot.
 */
export const scheduleOverrideSchema = z
  .object({
    pattern: z.string().min(1).optional(),
    tz: z.string().min(1).optional(),
    paused: z.boolean().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    updatedAt: z.number().int(),
    updatedBy: z.string().min(1),
  })
  .strict();
export type ScheduleOverride = z.infer<typeof scheduleOverrideSchema>;

/** A stored override as read: usable, or unreadable with the reason (never silently dropped). */
export type StoredOverride = { ok: true; value: ScheduleOverride } | { ok: false; reason: string };

/**
 * Overrides in one Redis hash (schedule name → JSON) under the `schedules` hash tag:
 * a handful of small fields, read whole with one HGETALL.
 */
export class ScheduleOverrideStore {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keys: Keyspace,
  ) {
    this.key = keys.tagged('schedules', 'overrides');
  }

  async all(): Promise<Map<string, StoredOverride>> {
    const raw = await this.redis.hgetall(this.key);
    return new Map(Object.entries(raw).map(([name, json]) => [name, parse(json)]));
  }

  /** The override and its stored JSON (kept so a failed change can be undone byte for byte). */
  async read(name: string): Promise<{ raw: string | null; stored?: StoredOverride }> {
    const raw = await this.redis.hget(this.key, name);
    return { raw, stored: raw === null ? undefined : parse(raw) };
  }

  /** Writes the override, or removes it when `value` is undefined. */
  async put(name: string, value: ScheduleOverride | undefined): Promise<void> {
    if (value === undefined) {
      await this.redis.hdel(this.key, name);
      return;
    }
    await this.redis.hset(this.key, name, JSON.stringify(scheduleOverrideSchema.parse(value)));
  }

  /** Puts back JSON exactly as `read` returned it (`null`: there was none). */
  async putRaw(name: string, raw: string | null): Promise<void> {
    if (raw === null) await this.redis.hdel(this.key, name);
    else await this.redis.hset(this.key, name, raw);
  }
}

function parse(json: string): StoredOverride {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'the stored override is not JSON' };
  }
  const parsed = scheduleOverrideSchema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, reason: `the stored override is malformed: ${z.prettifyError(parsed.error)}` };
}
