import { LuaCommand } from '../redis/lua-command';
import type { RedisClient } from '../redis/connection';
import type { Keyspace } from '../redis/keys';
import { LUA } from './lua';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Counts one failure; appends the (client, minute) row on its first. */
const RECORD = new LuaCommand('sign-in-failure', LUA['sign-in-failure']);

export interface SignInFailureLogOptions {
  /** How long rows and their counts are kept. @defaultValue 30 days */
  retentionMs?: number;
  /** Rows kept at most (approximately), whatever their age: a bound on many addresses. @defaultValue 100_000 */
  maxRows?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** One client's failed sign-ins within one minute. */
export interface SignInFailureRow {
  /** The stream id of the row (its first failure). */
  id: string;
  client: string;
  /** Start of the minute, epoch ms. */
  minute: number;
  /** Failures in that minute; undefined when the counts have expired before the row. */
  count?: number;
  /** Failures by refusal code (UNAUTHENTICATED, RATE_LIMITED, ...). */
  reasons: Record<string, number>;
  /** The last user name tried in that minute. */
  lastUser: string;
}

/**
 * Refused sign-ins, aggregated per client per minute in a stream of their own: the
 * first failure of a (client, minute) appends one row and the others only raise its
 * counts (a hash per minute). A client failing 210 times a second writes one row a
 * minute, and however many addresses an attacker uses, this stream is not the
 * operators' audit, so anonymous traffic can never evict an operator's entry
 * (docs/security.md, "What is logged"). Kept for `retentionMs` (MINID trimming), and
 * at most about `maxRows` rows.
 */
export class SignInFailureLog {
  readonly retentionMs: number;
  readonly maxRows: number;
  private readonly now: () => number;
  private readonly stream: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
    opts: SignInFailureLogOptions = {},
  ) {
    this.retentionMs = opts.retentionMs ?? 30 * DAY;
    this.maxRows = opts.maxRows ?? 100_000;
    if (!(this.retentionMs > 0)) throw new RangeError('retentionMs must be > 0');
    if (!Number.isInteger(this.maxRows) || this.maxRows < 1) throw new RangeError('maxRows must be an integer >= 1');
    this.now = opts.now ?? Date.now;
    this.stream = keys.tagged('audit', 'sign-in-failures');
  }

  /** Counts one refused sign-in; returns the client's failures in this minute so far. */
  async record(failure: { client: string; username: string; reason: string }): Promise<number> {
    const now = this.now();
    const minute = now - (now % MINUTE);
    const client = oneField(failure.client, 100) || 'unknown';
    const n = await RECORD.run(
      this.redis,
      [this.minuteKey(minute), this.stream],
      [
        client,
        oneField(failure.reason, 40),
        oneField(failure.username.trim().toLowerCase(), 64),
        minute,
        this.retentionMs,
        this.maxRows,
        Math.max(0, now - this.retentionMs),
      ],
    );
    return Number(n);
  }

  /** Newest first; `before` is the id of the last row of the previous page. */
  async page(opts: { limit?: number; before?: string } = {}): Promise<{ rows: SignInFailureRow[]; next?: string }> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 50), 1), 500);
    const end = opts.before ? `(${opts.before}` : '+';
    const raw = (await this.redis.xrevrange(this.stream, end, '-', 'COUNT', limit + 1)) as Array<[string, string[]]>;
    const entries = raw.slice(0, limit).map(([id, fields]) => ({ id, ...fieldsOf(fields) }));
    const minutes = [...new Set(entries.map((e) => e.minute))];
    const pipeline = this.redis.pipeline();
    for (const m of minutes) pipeline.hgetall(this.minuteKey(m));
    const counts = new Map<number, Record<string, string>>();
    const results = minutes.length ? ((await pipeline.exec()) ?? []) : [];
    minutes.forEach((m, i) => {
      const [err, h] = results[i] ?? [];
      counts.set(m, err ? {} : ((h as Record<string, string>) ?? {}));
    });
    const rows = entries.map((e): SignInFailureRow => {
      const h = counts.get(e.minute) ?? {};
      const reasons: Record<string, number> = {};
      const prefix = `${e.client}|reason|`;
      for (const [k, v] of Object.entries(h)) if (k.startsWith(prefix)) reasons[k.slice(prefix.length)] = Number(v);
      return {
        id: e.id,
        client: e.client,
        minute: e.minute,
        count: h[e.client] !== undefined ? Number(h[e.client]) : undefined,
        reasons: Object.keys(reasons).length ? reasons : { [e.reason]: 1 },
        lastUser: h[`${e.client}|user`] ?? e.user,
      };
    });
    return { rows, next: raw.length > limit ? entries[entries.length - 1]?.id : undefined };
  }

  private minuteKey(minute: number): string {
    return this.keys.tagged('audit', 'sign-in-failures', 'minute', minute);
  }
}

/** Text safe as one hash field part: no `|` (the separator), no control characters, cut to `max`. */
function oneField(value: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  return value.replace(/[|\u0000-\u001f\u007f]/g, '?').slice(0, max);
}

function fieldsOf(fields: string[]): { client: string; minute: number; user: string; reason: string } {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  return { client: f.client ?? '', minute: Number(f.minute), user: f.user ?? '', reason: f.reason ?? '' };
}
