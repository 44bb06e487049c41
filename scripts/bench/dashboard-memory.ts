/**
 * Memory sampling for the retry-all benchmark: process RSS and V8 heap every ~50 ms
 * while an operation runs, summarised as growth over a baseline taken after a full GC.
 */

export interface MemorySample {
  /** ms since the sampler started. */
  at: number;
  rss: number;
  heapUsed: number;
}

export interface MemorySummary {
  samples: number;
  baselineRss: number;
  baselineHeap: number;
  peakRss: number;
  peakHeap: number;
  /** Peak minus baseline, bytes. */
  rssGrowth: number;
  heapGrowth: number;
}

/** Peaks and growth over the baseline; an empty series grows by nothing. */
export function summariseMemory(baseline: { rss: number; heapUsed: number }, samples: readonly MemorySample[]): MemorySummary {
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  for (const s of samples) {
    if (s.rss > peakRss) peakRss = s.rss;
    if (s.heapUsed > peakHeap) peakHeap = s.heapUsed;
  }
  return {
    samples: samples.length,
    baselineRss: baseline.rss,
    baselineHeap: baseline.heapUsed,
    peakRss,
    peakHeap,
    rssGrowth: peakRss - baseline.rss,
    heapGrowth: peakHeap - baseline.heapUsed,
  };
}

/** Bytes as MiB with one decimal, for the report. */
export function mib(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

/**
 * Samples `process.memoryUsage()` on a timer. The timer shares the event loop with
 * the work, so a sample lands whenever the loop is free for it; the count says how
 * dense the series was.
 */
export class MemorySampler {
  private readonly samples: MemorySample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private t0 = 0;

  constructor(private readonly intervalMs = 50) {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new Error(`The sampling interval must be ≥ 1 ms, got ${intervalMs}`);
  }

  start(): void {
    this.t0 = performance.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Stops, takes a last sample and returns the series. */
  stop(): MemorySample[] {
    clearInterval(this.timer);
    this.sample();
    return this.samples;
  }

  private sample(): void {
    const m = process.memoryUsage();
    this.samples.push({ at: performance.now() - this.t0, rss: m.rss, heapUsed: m.heapUsed });
  }
}
