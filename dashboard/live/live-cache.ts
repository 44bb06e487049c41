import 'server-only';
export interface LiveCacheOptions {
  /** Entries kept at most; the oldest goes first. @defaultValue 1000 */
  maxEntries?: number;
  /** Keys kept fresh in the background at once; a key polled beyond this is read on demand only. @defaultValue 32 */
  maxWatched?: number;
  /** A watched key is read again this long before it expires, so a poll finds it fresh. @defaultValue 300 */
  refreshLeadMs?: number;
  /** How often the background refresh looks for due keys; 0: never by itself (tests call `refreshDue`). @defaultValue 100 */
  refreshEveryMs?: number;
  /** Clock, for tests. @defaultValue Date.now */
  now?: () => number;
}

export interface LiveGetOptions {
  /**
   * The key is polled (a tab's live view): keep it fresh in the background until this
   * long after the latest request for it. @defaultValue 0 (read on demand only)
   */
  watchMs?: number;
}

interface Entry {
  expiresAt: number;
  value: Promise<unknown>;
  /** Set once `value` has fulfilled: the value, and what was derived from it (an encoded HTTP body). */
  loaded?: { value: unknown; derived: Map<string, unknown> };
  load: () => Promise<unknown>;
  /** What `derived` was asked for on this key: made again from each background read, off the request path. */
  derivers: Map<string, (value: unknown) => unknown>;
  ttlMs: number;
  watchMs: number;
  watchedUntil: number;
  /** A background read in flight; the entry is replaced when it succeeds. */
  refresh?: Promise<unknown>;
}

/**
 * A short-lived, single-flight cache for the dashboard's live reads. Every open tab
 * polls every few seconds; with a 1-2 s TTL and one in-flight load per key, N tabs
 * cost Redis one read per key per TTL instead of N. A failed load is dropped at once
 * so the next poll retries rather than serving the error for a whole TTL.
 *
 * A polled key (`watchMs`) is read again in the background just before it expires, for
 * as long as someone polls it, so a poll is answered from memory with data never older
 * than the TTL — the way Oban Web refreshes its views on a timer rather than on each
 * viewer's request. Nobody polling, nothing is read. `maxWatched` bounds what one
 * viewer can make the dashboard read by asking for many distinct keys
 * (docs/decisions/0009-polls-from-memory.md).
 */
export class LiveCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxWatched: number;
  private readonly refreshLeadMs: number;
  private readonly refreshEveryMs: number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: LiveCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1_000;
    this.maxWatched = opts.maxWatched ?? 32;
    this.refreshLeadMs = opts.refreshLeadMs ?? 300;
    this.refreshEveryMs = opts.refreshEveryMs ?? 100;
    this.now = opts.now ?? Date.now;
  }

  get<T>(key: string, ttlMs: number, load: () => Promise<T>, opts: LiveGetOptions = {}): Promise<T> {
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (opts.watchMs) this.watch(hit, t, opts.watchMs);
      if (hit.expiresAt > t) return hit.value as Promise<T>;
      // Expired while its background read is still running (a slow Redis): wait for that read, not a second one.
      if (hit.refresh) return hit.refresh as Promise<T>;
    }
    const entry = this.start(key, ttlMs, load, t);
    if (opts.watchMs) this.watch(entry, t, opts.watchMs);
    this.evict(t);
    return entry.value as Promise<T>;
  }

  /**
   * For a key loaded and unexpired, `derive(value)` computed once per load and kept with
   * it (the HTTP server's encoded body); undefined otherwise. Counts as a poll of a
   * watched key, and a watched key's background read derives it again at once, so the
   * next poll does not wait for the encoding.
   */
  derived<D>(key: string, name: string, derive: (value: unknown) => D): D | undefined {
    const t = this.now();
    const e = this.entries.get(key);
    if (!e?.loaded || e.expiresAt <= t) return undefined;
    if (e.watchMs) e.watchedUntil = Math.max(e.watchedUntil, t + e.watchMs);
    e.derivers.set(name, derive);
    if (!e.loaded.derived.has(name)) e.loaded.derived.set(name, derive(e.loaded.value));
    return e.loaded.derived.get(name) as D;
  }

  /** Whether `key` holds a loaded, unexpired value (no poll counted). */
  isFresh(key: string): boolean {
    const e = this.entries.get(key);
    return Boolean(e?.loaded && e.expiresAt > this.now());
  }

  /** Drops one key, or every key starting with `prefix` (after a mutation); a background read in flight for it is discarded. */
  invalidate(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keys being kept fresh in the background now. */
  get watched(): number {
    const t = this.now();
    let n = 0;
    for (const e of this.entries.values()) if (e.watchedUntil > t) n++;
    return n;
  }

  /**
   * Starts the background read of every watched key about to expire. Runs on its own
   * every `refreshEveryMs` while a key is watched.
   */
  refreshDue(): void {
    const t = this.now();
    let watching = false;
    for (const [key, e] of this.entries) {
      if (e.watchedUntil <= t) continue;
      watching = true;
      if (e.refresh || !e.loaded || t < e.expiresAt - this.refreshLeadMs) continue;
      this.refresh(key, e, t);
    }
    if (!watching) this.stopTimer();
  }

  /** Stops the background refresh (the process is closing); keys are read on demand again. */
  close(): void {
    for (const e of this.entries.values()) e.watchedUntil = 0;
    this.stopTimer();
  }

  private start(key: string, ttlMs: number, load: () => Promise<unknown>, t: number): Entry {
    const value = load();
    // The TTL counts from the start of the load: a slow read is not served stale for longer.
    const entry: Entry = { expiresAt: t + ttlMs, value, load, derivers: new Map(), ttlMs, watchMs: 0, watchedUntil: 0 };
    this.entries.set(key, entry);
    value.then(
      (v) => {
        entry.loaded = { value: v, derived: new Map() };
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }

  private refresh(key: string, e: Entry, t: number): void {
    const value = e.load();
    e.refresh = value;
    value.then(
      (v) => {
        // Invalidated (an action changed something) or replaced meanwhile: this read may predate it.
        if (this.entries.get(key) !== e) return;
        const derived = new Map<string, unknown>();
        for (const [name, derive] of e.derivers) {
          try {
            derived.set(name, derive(v));
          } catch {
            // Left to the next `derived` call, which throws to its caller.
          }
        }
        this.entries.delete(key);
        this.entries.set(key, { ...e, expiresAt: t + e.ttlMs, value, loaded: { value: v, derived }, refresh: undefined });
      },
      () => {
        // The current value stays until it expires; the next poll then reads (and sees the error) itself.
        if (this.entries.get(key) === e) e.refresh = undefined;
      },
    );
  }

  private watch(e: Entry, t: number, watchMs: number): void {
    if (e.watchedUntil <= t && this.watched >= this.maxWatched) return;
    e.watchMs = watchMs;
    e.watchedUntil = Math.max(e.watchedUntil, t + watchMs);
    if (this.refreshEveryMs > 0 && !this.timer) {
      this.timer = setInterval(() => this.refreshDue(), this.refreshEveryMs);
      // The refresh never keeps a process alive on its own.
      this.timer.unref?.();
    }
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private evict(t: number): void {
    if (this.entries.size <= this.maxEntries) return;
    for (const [key, e] of this.entries) {
      if (e.expiresAt <= t) this.entries.delete(key);
    }
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

/** TTL of live reads: under the 3 s poll interval, so each poll sees fresh data. */
export const LIVE_TTL_MS = 1_500;

/**
 * How long a polled key is kept fresh after its latest request: a tab polls every 3 s
 * (LIVE_REFETCH_MS), so one missed poll does not let it go cold; a closed tab stops
 * costing reads after this.
 */
export const LIVE_WATCH_MS = 10_000;

const SHARED = Symbol.for('bullpen.dashboard.liveCache');

/**
 * The dashboard process's one live cache. Under scripts/web-server.ts two copies of
 * this module run in the process — the server's own and the one bundled into the Next.js
 * app — and both must see the same entries: the server answers polls from what the
 * app's routes loaded, and an action's invalidation must reach both. A registered
 * symbol on globalThis is the one name both copies share.
 */
export function sharedLiveCache(): LiveCache {
  const g = globalThis as typeof globalThis & { [SHARED]?: LiveCache };
  g[SHARED] ??= new LiveCache();
  return g[SHARED];
}
