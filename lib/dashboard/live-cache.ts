export interface LiveCacheOptions {
  /** Entries kept at most; the oldest goes first. @defaultValue 1000 */
  maxEntries?: number;
  /** Clock, for tests. @defaultValue Date.now */
  now?: () => number;
}

interface Entry {
  expiresAt: number;
  value: Promise<unknown>;
}

/**
 * A short-lived, single-flight cache for the dashboard's live reads. Every open tab
 * polls every few seconds; with a 1-2 s TTL and one in-flight load per key, N tabs
 * cost Redis one read per key per TTL instead of N. A failed load is dropped at once
 * so the next poll retries rather than serving the error for a whole TTL.
 */
export class LiveCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: LiveCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1_000;
    this.now = opts.now ?? Date.now;
  }

  get<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > t) return hit.value as Promise<T>;
    const value = load();
    // The TTL counts from the start of the load: a slow read is not served stale for longer.
    this.entries.set(key, { expiresAt: t + ttlMs, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    this.evict(t);
    return value;
  }

  /** Drops one key, or every key starting with `prefix` (after a mutation). */
  invalidate(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
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
