import { Counter, Gauge, Registry, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import type { HealthReport } from '../health/health-status';
import { withTimeLimit } from '../health/time-limit';
import type { RedisClient } from '../redis/connection';
import { withinRedisBound } from '../redis/redis-bound';
import { healthGauges, type QueueHealthSample } from './health-gauges';
import { DURATION_BUCKETS, JobStats } from './job-stats';
import { OptionalGauge } from './optional-gauge';

/** Job states reported as queue depth. */
export const DEPTH_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'] as const;

export type DepthSource = () => Promise<Array<{ type: string; counts: Record<string, number> }>>;

/**
 * How long each Redis-reading gauge may take in one scrape before it is left out: the
 * gauges read in parallel, so a scrape answers in about this plus the rendering,
 * whatever Redis does (docs/observability.md, "Redis restarts").
 */
export const DEFAULT_GAUGE_TIMEOUT_MS = 500;

export interface WorkerMetricsOptions {
  /**
   * The process's services connection: `<prefix>redis_up` PINGs it, and the Redis-reading
   * gauges wait for its readiness within their time limit instead of failing a first
   * scrape while it still opens. Without it there is no `redis_up`.
   */
  redis?: RedisClient;
  /** @defaultValue DEFAULT_GAUGE_TIMEOUT_MS (500) */
  gaugeTimeoutMs?: number;
}

/** The Redis-reading gauges, as the scrape-error counter labels them. */
type RedisGauge = 'redis_up' | 'queue_depth' | 'dlq_size' | 'health';

/**
 * The four metrics of the background-workers requirements (docs/requirements.md#background-workers), with its names, labels and buckets,
 * plus the DLQ and per-queue health gauges the alerts need (deploy/prometheus/alerts.yml). The prefix is
 * the process's (`Bullpen.metricsPrefix`; default `bullpen_`).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly jobsTotal: Counter<'type' | 'status'>;
  readonly jobsActive: Gauge<'type'>;
  readonly duration: DurationHistogram;
  private readonly stats = new Map<string, JobStats>();
  readonly queueDepth: Gauge<'type' | 'state'>;
  readonly dlqSize: OptionalGauge;
  readonly alertsTotal: Counter<'reason' | 'type'>;
  readonly alertDeliveries: Counter<'kind' | 'outcome'>;
  readonly queueWorkers: Gauge<'type'>;
  readonly oldestWaiting: Gauge<'type'>;
  readonly redisUp: Gauge;
  readonly scrapeErrors: Counter<'gauge'>;
  private readonly gaugeTimeoutMs: number;
  /** What this scrape read from Redis; a gauge whose read failed or ran over is undefined and left out. */
  private read: {
    depth?: Awaited<ReturnType<DepthSource>>;
    health?: QueueHealthSample[];
  } = {};

  /**
   * @param health the health checker's report (`bullpen.health.check()`, cached 2 s and shared), read at
   * scrape time for `queue_workers` and `queue_oldest_waiting_seconds`; without it those carry no samples.
   */
  constructor(
    prefix = 'bullpen_',
    private readonly depth?: DepthSource,
    private readonly dlqSource?: () => Promise<number>,
    private readonly health?: () => Promise<HealthReport>,
    private readonly opts: WorkerMetricsOptions = {},
  ) {
    const p = `${prefix}worker_`;
    const stats = this.stats;
    this.gaugeTimeoutMs = opts.gaugeTimeoutMs ?? DEFAULT_GAUGE_TIMEOUT_MS;
    if (!Number.isInteger(this.gaugeTimeoutMs) || this.gaugeTimeoutMs <= 0) {
      throw new RangeError(`gaugeTimeoutMs must be a positive integer, got ${this.gaugeTimeoutMs}`);
    }
    const read = () => this.read;
    this.jobsTotal = new Counter({
      name: `${p}jobs_total`,
      help: 'Job attempts by outcome: completed, retried (will run again) or failed (for good).',
      labelNames: ['type', 'status'],
      registers: [this.registry],
      // The runtime counts in JobStats; the counter takes the difference at each scrape.
      collect() {
        for (const [type, s] of stats) {
          const seen = flushed.get(type) ?? { completed: 0, retried: 0, failed: 0 };
          for (const status of ['completed', 'retried', 'failed'] as const) {
            if (s[status] > seen[status]) this.inc({ type, status }, s[status] - seen[status]);
            seen[status] = s[status];
          }
          flushed.set(type, seen);
        }
      },
    });
    const flushed = new Map<string, { completed: number; retried: number; failed: number }>();
    this.jobsActive = new Gauge({
      name: `${p}jobs_active`,
      help: 'Jobs running now in this process.',
      labelNames: ['type'],
      registers: [this.registry],
      collect() {
        for (const [type, s] of stats) this.set({ type }, s.active);
      },
    });
    this.duration = new DurationHistogram(`${p}job_duration_seconds`, stats);
    this.registry.registerMetric(this.duration as never);
    this.queueDepth = new Gauge({
      name: `${p}queue_depth`,
      help: 'Jobs per queue and state, read from Redis at scrape time (O(1) per state).',
      labelNames: ['type', 'state'],
      registers: [this.registry],
      collect: depth
        ? () => {
            this.queueDepth.reset();
            for (const { type, counts } of read().depth ?? []) {
              for (const state of DEPTH_STATES) this.queueDepth.set({ type, state }, counts[state] ?? 0);
            }
          }
        : undefined,
    });
    this.dlqSize = new OptionalGauge(
      `${p}dlq_size`,
      'Dead letters waiting for an operator (status pending); absent when Redis could not be read.',
    );
    if (dlqSource) this.registry.registerMetric(this.dlqSize as never);
    this.alertsTotal = new Counter({
      name: `${p}alerts_total`,
      help: 'Alerts raised: a critical type dead-lettered, or the DLQ passed its threshold.',
      labelNames: ['reason', 'type'],
      registers: [this.registry],
    });
    this.alertDeliveries = new Counter({
      name: `${p}alert_deliveries_total`,
      help: 'Alert messages sent to channels (lib/alerts): ok, failed (retried later) or dropped after the last attempt.',
      labelNames: ['kind', 'outcome'],
      registers: [this.registry],
    });
    this.queueWorkers = new Gauge({
      name: `${p}queue_workers`,
      help: 'Connected workers per handled queue (CLIENT LIST, via the health checker); absent when unknowable.',
      labelNames: ['type'],
      registers: [this.registry],
      collect: health
        ? () => {
            this.queueWorkers.reset();
            for (const s of read().health ?? []) if (s.workers !== undefined) this.queueWorkers.set({ type: s.type }, s.workers);
          }
        : undefined,
    });
    this.oldestWaiting = new Gauge({
      name: `${p}queue_oldest_waiting_seconds`,
      help: 'How long the longest-waiting ready job of each handled queue has been ready (0: none waits; paused queues left out).',
      labelNames: ['type'],
      registers: [this.registry],
      collect: health
        ? () => {
            this.oldestWaiting.reset();
            for (const s of read().health ?? []) {
              if (s.oldestWaitingSeconds !== undefined) this.oldestWaiting.set({ type: s.type }, s.oldestWaitingSeconds);
            }
          }
        : undefined,
    });
    this.redisUp = new Gauge({
      name: `${prefix}redis_up`,
      help: `1 when this process's Redis connection answered PING within ${this.gaugeTimeoutMs} ms at scrape time, else 0.`,
      registers: opts.redis ? [this.registry] : [],
    });
    this.scrapeErrors = new Counter({
      name: `${prefix}scrape_errors_total`,
      help: 'Redis reads left out of a scrape: they failed or ran past their time limit (gauge: redis_up, queue_depth, dlq_size, health).',
      labelNames: ['gauge'],
      registers: [this.registry],
    });
  }

  /** The plain counters the runtime records one job type's attempts in. */
  forType(type: string): JobStats {
    let s = this.stats.get(type);
    if (!s) {
      s = new JobStats();
      this.stats.set(type, s);
    }
    return s;
  }

  /**
   * The exposition. Redis is read first, every gauge in parallel and each within the gauge
   * time limit; a read that fails or runs over is left out of this scrape and counted in
   * `scrape_errors_total`, so the scrape still answers, with what the process has.
   */
  async render(): Promise<{ contentType: string; body: string }> {
    const [up, depth, dlqSize, health] = await Promise.all([
      this.opts.redis ? this.bounded('redis_up', () => (this.opts.redis as RedisClient).ping()) : undefined,
      this.depth && this.bounded('queue_depth', this.depth),
      this.dlqSource && this.bounded('dlq_size', this.dlqSource),
      this.health && this.bounded('health', this.health),
    ]);
    if (this.opts.redis) this.redisUp.set(up === 'PONG' ? 1 : 0);
    this.read = { depth, health: health && healthGauges(health) };
    this.dlqSize.set(dlqSize);
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /** One Redis read within the gauge time limit; undefined (and counted) when it fails or runs over. */
  private async bounded<T>(gauge: RedisGauge, load: () => Promise<T>): Promise<T | undefined> {
    const { redis } = this.opts;
    const work = redis ? withinRedisBound(redis, this.gaugeTimeoutMs, gauge, load) : withTimeLimit(load(), this.gaugeTimeoutMs, gauge);
    try {
      return await work;
    } catch {
      this.scrapeErrors.inc({ gauge });
      return undefined;
    }
  }
}

/**
 * `<prefix>worker_job_duration_seconds{type}` read straight from JobStats, in the
 * shape prom-client's registry renders (docs/requirements.md#background-workers: buckets, cumulative, with +Inf).
 */
export class DurationHistogram {
  readonly type = 'histogram';
  readonly help = 'Time from an attempt’s start to its end.';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    private readonly stats: Map<string, JobStats>,
  ) {}

  /** Records one observation (tests and callers outside the runtime). */
  observe(labels: { type: string }, seconds: number): void {
    let s = this.stats.get(labels.type);
    if (!s) {
      s = new JobStats();
      this.stats.set(labels.type, s);
    }
    s.observe(seconds);
  }

  async get(): Promise<Omit<MetricObjectWithValues<MetricValueWithName<string>>, 'collect'>> {
    const values: MetricValueWithName<string>[] = [];
    for (const [type, s] of this.stats) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { le, type }, value: cumulative });
      });
      cumulative += s.buckets[DURATION_BUCKETS.length];
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', type }, value: cumulative });
      values.push({ metricName: `${this.name}_sum`, labels: { type }, value: s.durationSum });
      values.push({ metricName: `${this.name}_count`, labels: { type }, value: s.durationCount });
    }
    return { name: this.name, help: this.help, type: 'histogram' as never, values, aggregator: 'sum' };
  }

  reset(): void {
    this.stats.clear();
  }
}
