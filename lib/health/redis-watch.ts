import { z } from 'zod';

/** What a process knows about its Redis now: plain data, safe to send to any signed-in tab. */
export const redisStateSchema = z.object({
  reachable: z.boolean(),
  /** Since when (epoch ms) Redis has been in this state: the first failed PING or read, or the first answer after one. */
  since: z.number().int(),
  /** Why it is unreachable: no answer within the limit (a hung server), or the connection refused or closed. */
  reason: z.enum(['timeout', 'error']).optional(),
  /** The latest PING's round trip, when it answered. */
  pingMs: z.number().nonnegative().optional(),
  /** When the latest PING settled (epoch ms); 0 before the first. */
  checkedAt: z.number().int(),
});
export type RedisState = z.infer<typeof redisStateSchema>;

export interface RedisWatchOptions {
  /**
   * A PING sent this often while someone asks for the state (unless one is still out).
   * @defaultValue 500
   */
  intervalMs?: number;
  /**
   * A PING unanswered this long marks Redis unreachable. Short, unlike a read's limit: a
   * PING on loopback answers in a millisecond, and a hung server (SIGSTOP, a blocking
   * script) must show in a tab within 5 s (docs/dashboard.md, "Redis outages").
   * @defaultValue 1200
   */
  timeoutMs?: number;
  /**
   * The PINGs go on this long after the latest `state()` call or marked failure; nobody
   * asking, nothing is sent.
   * @defaultValue 10000
   */
  watchMs?: number;
  /** The clock, for tests. @defaultValue Date.now */
  now?: () => number;
}

/**
 * Whether this process reaches Redis, and since when. A short-timeout PING runs in the
 * background while anyone asks (every open tab does, through /api/live/redis), and any
 * read that times out reports itself with `markUnreachable`, so a hung or killed server
 * is known within seconds without a tab waiting on Redis to find out. Only an answered
 * PING marks it reachable again, so the state clears by itself when Redis is back.
 */
export class RedisWatch {
  private current: RedisState;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly watchMs: number;
  private readonly now: () => number;
  private watchedUntil = 0;
  private inFlight = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly ping: () => Promise<unknown>,
    opts: RedisWatchOptions = {},
  ) {
    this.intervalMs = positive(opts.intervalMs ?? 500, 'intervalMs');
    this.timeoutMs = positive(opts.timeoutMs ?? 1_200, 'timeoutMs');
    this.watchMs = positive(opts.watchMs ?? 10_000, 'watchMs');
    this.now = opts.now ?? Date.now;
    this.current = { reachable: true, since: this.now(), checkedAt: 0 };
  }

  /** The state now; keeps the PINGs going for `watchMs` (the first call sends one at once). */
  state(): RedisState {
    this.keepWatching();
    return { ...this.current };
  }

  /** A read or PING got no answer in time, or failed on the connection. The first failure sets `since`. */
  markUnreachable(reason: 'timeout' | 'error'): void {
    this.setUnreachable(reason);
    // Only a PING can say it is back: keep sending them.
    this.keepWatching();
  }

  /**
   * Settles once Redis is marked unreachable (at once if it is now): a read in flight when
   * it goes away is answered then, rather than holding its tab's connection until its own
   * limit. `cancel` when the read is done.
   */
  untilUnreachable(): { promise: Promise<void>; cancel(): void } {
    if (!this.current.reachable) return { promise: Promise.resolve(), cancel: () => undefined };
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.waiters.add(wake);
    return { promise, cancel: () => this.waiters.delete(wake) };
  }

  /** Sends one PING now (unless one is still out); `tick` runs on the timer while watched. */
  tick(): void {
    const t = this.now();
    if (this.watchedUntil <= t) {
      this.stopTimer();
      return;
    }
    // A PING still out on a hung server: another would only queue behind it.
    if (this.inFlight) return;
    this.inFlight = true;
    const started = performance.now();
    let settled = false;
    const timeout = setTimeout(() => {
      if (!settled) this.setUnreachable('timeout');
    }, this.timeoutMs);
    timeout.unref?.();
    this.ping().then(
      () => {
        settled = true;
        clearTimeout(timeout);
        this.inFlight = false;
        const pingMs = Math.round((performance.now() - started) * 10) / 10;
        const at = this.now();
        this.current = this.current.reachable
          ? { ...this.current, pingMs, checkedAt: at }
          : { reachable: true, since: at, pingMs, checkedAt: at };
      },
      () => {
        settled = true;
        clearTimeout(timeout);
        this.inFlight = false;
        this.setUnreachable('error');
      },
    );
  }

  /** Stops the PINGs (the process is closing). */
  close(): void {
    this.watchedUntil = 0;
    this.stopTimer();
  }

  private setUnreachable(reason: 'timeout' | 'error'): void {
    const t = this.now();
    const wasReachable = this.current.reachable;
    this.current = wasReachable ? { reachable: false, since: t, reason, checkedAt: t } : { ...this.current, reason, checkedAt: t };
    if (!wasReachable) return;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  private keepWatching(): void {
    const t = this.now();
    const idle = this.watchedUntil <= t;
    this.watchedUntil = t + this.watchMs;
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    // The watch never keeps a process alive on its own.
    this.timer.unref?.();
    if (idle) this.tick();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of ms (got ${value})`);
  return value;
}

const SHARED = Symbol.for('bullpen.dashboard.redisWatch');

/**
 * The dashboard process's one watch. The Next.js app makes it (its Bullpen's connection
 * PINGs), and the dashboard's server (scripts/web-server.ts, another copy of lib/ in the
 * same process) answers tabs from it: a registered symbol on globalThis is the one name
 * both copies share, as with the live cache. Undefined until the app made it.
 */
export function sharedRedisWatch(make?: () => RedisWatch): RedisWatch | undefined {
  const g = globalThis as typeof globalThis & { [SHARED]?: RedisWatch };
  if (!g[SHARED] && make) g[SHARED] = make();
  return g[SHARED];
}

/** "Redis unreachable since 09:41:18 UTC": the one sentence servers answer with (tabs write the time in their own zone). */
export function unreachableSentence(state: Pick<RedisState, 'since'>): string {
  return `Redis unreachable since ${new Date(state.since).toISOString().slice(11, 19)} UTC`;
}
