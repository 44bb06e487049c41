import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Job states reported as queue depth. */
export const DEPTH_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'] as const;

export type DepthSource = () => Promise<Array<{ type: string; counts: Record<string, number> }>>;

/**
 * The four metrics of the background-workers ADR, with its names, labels and buckets,
 * plus the DLQ gauges the alerts need. The prefix is configurable (default `ruvbot_`).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly jobsTotal: Counter<'type' | 'status'>;
  readonly jobsActive: Gauge<'type'>;
  readonly duration: Histogram<'type'>;
  readonly queueDepth: Gauge<'type' | 'state'>;
  readonly dlqSize: Gauge;
  readonly alertsTotal: Counter<'reason' | 'type'>;

  constructor(prefix = 'ruvbot_', depth?: DepthSource, dlqSize?: () => Promise<number>) {
    const p = `${prefix}worker_`;
    this.jobsTotal = new Counter({
      name: `${p}jobs_total`,
      help: 'Job attempts by outcome: completed, retried (will run again) or failed (for good).',
      labelNames: ['type', 'status'],
      registers: [this.registry],
    });
    this.jobsActive = new Gauge({
      name: `${p}jobs_active`,
      help: 'Jobs running now in this process.',
      labelNames: ['type'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: `${p}job_duration_seconds`,
      help: 'Time from an attempt’s start to its end.',
      labelNames: ['type'],
      buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers: [this.registry],
    });
    this.queueDepth = new Gauge({
      name: `${p}queue_depth`,
      help: 'Jobs per queue and state, read from Redis at scrape time (O(1) per state).',
      labelNames: ['type', 'state'],
      registers: [this.registry],
      collect: depth
        ? async () => {
            this.queueDepth.reset();
            for (const { type, counts } of await depth()) {
              for (const state of DEPTH_STATES) this.queueDepth.set({ type, state }, counts[state] ?? 0);
            }
          }
        : undefined,
    });
    this.dlqSize = new Gauge({
      name: `${p}dlq_size`,
      help: 'Dead letters waiting for an operator (status pending).',
      registers: [this.registry],
      collect: dlqSize
        ? async () => {
            this.dlqSize.set(await dlqSize());
          }
        : undefined,
    });
    this.alertsTotal = new Counter({
      name: `${p}alerts_total`,
      help: 'Alerts raised: a critical type dead-lettered, or the DLQ passed its threshold.',
      labelNames: ['reason', 'type'],
      registers: [this.registry],
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
