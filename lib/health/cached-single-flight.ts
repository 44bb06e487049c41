/**
 * A value loaded at most once per `ttlMs`, with concurrent callers sharing the load in
 * flight: twenty dashboard tabs or two Prometheus replicas ask Redis one question, not
 * twenty. A failed load is not cached, so the next caller tries again.
 */
export class CachedSingleFlight<T> {
  private value?: { data: T; loadedAt: number };
  private inFlight?: Promise<T>;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new RangeError(`ttlMs must be a finite number ≥ 0 (got ${ttlMs})`);
    }
  }

  get(): Promise<T> {
    if (this.value && this.now() - this.value.loadedAt < this.ttlMs) return Promise.resolve(this.value.data);
    this.inFlight ??= this.load()
      .then((data) => {
        this.value = { data, loadedAt: this.now() };
        return data;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /** Forgets the cached value; a load in flight still completes for its callers. */
  invalidate(): void {
    this.value = undefined;
  }
}
