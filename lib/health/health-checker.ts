import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { TimeoutError } from '../errors/timeout-error';
import { silentLogger, type Logger } from '../logging/logger';
import { readyClient, type RedisClient } from '../redis/connection';
import { CachedSingleFlight } from './cached-single-flight';
import type { CheckOutcome, QueueSource } from './check-outcome';
import { checkDeadLetters } from './dead-letters-check';
import { worstStatus } from './health-rules';
import { toPublicHealth, type CheckName, type CheckResult, type HealthReport, type PublicHealth } from './health-status';
import { checkQueues } from './queues-check';
import { checkRedis } from './redis-check';
import type { RedisWatch } from './redis-watch';
import { checkWorkers } from './workers-check';
import { withTimeLimit } from './time-limit';

const MINUTE = 60_000;

const limitsSchema = z
  .object({
    minWorkers: z.number().int().min(0),
    redisDegradedMs: z.number().positive(),
    waitingDegradedMs: z.number().int().positive(),
    waitingUnhealthyMs: z.number().int().positive(),
    deadLetterThreshold: z.number().int().positive(),
    checkTimeoutMs: z.number().int().positive().max(60_000),
    cacheTtlMs: z.number().int().min(0).max(60_000),
  })
  .refine((o) => o.waitingUnhealthyMs > o.waitingDegradedMs, {
    message: 'must be greater than waitingDegradedMs',
    path: ['waitingUnhealthyMs'],
  });

export interface HealthCheckerOptions {
  /** The shared producer connection (no offline queue, so a down Redis fails fast). */
  redis: RedisClient;
  queues: QueueSource;
  /**
   * The job types whose queues count for the workers and queues checks: those with a
   * handler, since a queue nobody is meant to serve cannot be short of workers.
   * @defaultValue the job table's handled types
   */
  types?: readonly string[];
  /**
   * Connected workers each queue needs for the workers check to be healthy.
   * @defaultValue 1 (config HEALTH_MIN_WORKERS)
   */
  minWorkers?: number;
  /**
   * A PING at or above this many ms is degraded (docs/requirements.md#background-workers: 100 ms).
   * @defaultValue 100
   */
  redisDegradedMs?: number;
  /**
   * A job ready this long without being picked up makes the queues check degraded.
   * @defaultValue 300000 (5 min)
   */
  waitingDegradedMs?: number;
  /**
   * ... and unhealthy past this.
   * @defaultValue 1800000 (30 min)
   */
  waitingUnhealthyMs?: number;
  /**
   * Pending dead letters; without it the deadLetters check is left out of the report.
   * The DLQ store's `pendingCount()` in production.
   */
  deadLetters?: () => Promise<number>;
  /**
   * This many pending dead letters or more is unhealthy; fewer (but some) degraded.
   * @defaultValue 100 (config DLQ_ALERT_THRESHOLD)
   */
  deadLetterThreshold?: number;
  /**
   * Time limit of each check: a hung Redis reads as unhealthy after this, instead of a
   * probe that never answers (Kubernetes' default probe timeout is 1 s, most are 2–5).
   * @defaultValue 2000
   */
  checkTimeoutMs?: number;
  /**
   * How long a report is reused. Every dashboard tab and probe within this window gets
   * the same report, and callers arriving during an evaluation share it.
   * @defaultValue 2000
   */
  cacheTtlMs?: number;
  /**
   * The process's short-timeout PING (lib/health/redis-watch.ts). While it says Redis is
   * unreachable, every check that needs Redis is unhealthy at once with `since`, rather
   * than after its time limit; a redis check that times out tells it.
   */
  watch?: RedisWatch;
  /** The clock, for tests. @defaultValue Date.now */
  now?: () => number;
  logger?: Logger;
}

/**
 * The health checker of the background-workers requirements (docs/requirements.md#background-workers): redis latency, workers per queue,
 * the oldest waiting job and pending dead letters, each healthy / degraded /
 * unhealthy; the worst one is the overall status.
 */
export class HealthChecker {
  private readonly limits: z.infer<typeof limitsSchema>;
  private readonly types: readonly string[];
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly cache: CachedSingleFlight<HealthReport>;
  private lastStatus?: HealthReport['status'];
  /** Whether the cached report already says Redis is unreachable. */
  private reportedDown = false;

  constructor(private readonly opts: HealthCheckerOptions) {
    const parsed = limitsSchema.safeParse({
      minWorkers: opts.minWorkers ?? 1,
      redisDegradedMs: opts.redisDegradedMs ?? 100,
      waitingDegradedMs: opts.waitingDegradedMs ?? 5 * MINUTE,
      waitingUnhealthyMs: opts.waitingUnhealthyMs ?? 30 * MINUTE,
      deadLetterThreshold: opts.deadLetterThreshold ?? 100,
      checkTimeoutMs: opts.checkTimeoutMs ?? 2_000,
      cacheTtlMs: opts.cacheTtlMs ?? 2_000,
    });
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new AppError('VALIDATION', `Invalid health checker options: ${issues.join('; ')}`, { issues });
    }
    this.limits = parsed.data;
    this.types = [...new Set(opts.types ?? opts.queues.jobs.handled)];
    const unknown = this.types.filter((t) => !opts.queues.jobs.has(t));
    if (unknown.length > 0) {
      throw new AppError('UNKNOWN_JOB_TYPE', `Health checker: unknown job type(s) ${unknown.join(', ')}`, { unknown });
    }
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? silentLogger;
    this.cache = new CachedSingleFlight(() => this.evaluate(), this.limits.cacheTtlMs, this.now);
  }

  /** The full report (details included), at most `cacheTtlMs` old. */
  check(): Promise<HealthReport> {
    // The watch saw Redis go or come back since the report was made: it would say otherwise for up to cacheTtlMs.
    if (this.opts.watch && this.opts.watch.state().reachable === this.reportedDown) this.cache.invalidate();
    return this.cache.get();
  }

  /** Statuses only, for an unauthenticated probe. */
  async publicSummary(): Promise<PublicHealth> {
    return toPublicHealth(await this.check());
  }

  private async evaluate(): Promise<HealthReport> {
    const { limits, opts } = this;
    const down = opts.watch?.state();
    if (down && !down.reachable) return this.unreachableReport(down.since);
    // The shared connection has no offline queue: right after start (or during a
    // reconnect) a command fails at once. Give it the time limit to come up, so a
    // dashboard's first probe does not read a connection still opening as an outage.
    const ready = opts.redis.status === 'ready' ? Promise.resolve() : readyClient(opts.redis, limits.checkTimeoutMs).catch(() => undefined);
    const runs: Array<Promise<CheckResult>> = [
      this.run('redis', () => ready.then(() => checkRedis(opts.redis, limits.redisDegradedMs))),
      this.run('workers', () => ready.then(() => checkWorkers(opts.redis, opts.queues, this.types, limits.minWorkers))),
      this.run('queues', () =>
        ready.then(() =>
          checkQueues(
            opts.redis,
            opts.queues,
            this.types,
            { degradedMs: limits.waitingDegradedMs, unhealthyMs: limits.waitingUnhealthyMs },
            this.now(),
          ),
        ),
      ),
    ];
    const deadLetters = opts.deadLetters;
    if (deadLetters) runs.push(this.run('deadLetters', () => checkDeadLetters(deadLetters, limits.deadLetterThreshold)));
    const checks = await Promise.all(runs);
    const report: HealthReport = {
      status: worstStatus(checks.map((c) => c.status)),
      checks,
      checkedAt: new Date(this.now()).toISOString(),
    };
    this.noteTransition(report);
    this.reportedDown = false;
    return report;
  }

  /** Every check needs Redis (dead letters too): each is unhealthy with when Redis went away. */
  private unreachableReport(since: number): HealthReport {
    const at = new Date(this.now()).toISOString();
    const names: CheckName[] = ['redis', 'workers', 'queues', ...(this.opts.deadLetters ? (['deadLetters'] as const) : [])];
    const report: HealthReport = {
      status: 'unhealthy',
      checks: names.map((name) => ({ name, status: 'unhealthy', latencyMs: 0, details: { reason: 'unreachable', since }, checkedAt: at })),
      checkedAt: at,
    };
    this.noteTransition(report);
    this.reportedDown = true;
    return report;
  }

  /** Runs one check under the time limit; any error or timeout is unhealthy, with a fixed reason code. */
  private async run(name: CheckName, check: () => Promise<CheckOutcome>): Promise<CheckResult> {
    const started = performance.now();
    const result = (
      status: CheckResult['status'],
      details: Record<string, unknown>,
      latencyMs = performance.now() - started,
    ): CheckResult => ({
      name,
      status,
      latencyMs: Math.round(latencyMs * 10) / 10,
      details,
      checkedAt: new Date(this.now()).toISOString(),
    });
    try {
      const outcome = await withTimeLimit(check(), this.limits.checkTimeoutMs, `${name} health check`);
      return result(outcome.status, outcome.details, outcome.latencyMs);
    } catch (err) {
      const reason = err instanceof TimeoutError ? 'timeout' : 'error';
      if (name === 'redis') this.opts.watch?.markUnreachable(reason);
      // The error's text goes to the log for operators, never into the report.
      this.logger.warn({ err, check: name, reason }, 'health check failed');
      return result('unhealthy', { reason, timeLimitMs: this.limits.checkTimeoutMs });
    }
  }

  private noteTransition(report: HealthReport): void {
    if (report.status === this.lastStatus) return;
    const statuses = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
    const level = report.status === 'healthy' ? 'info' : 'warn';
    this.logger[level]({ status: report.status, previous: this.lastStatus ?? null, checks: statuses }, 'health status changed');
    this.lastStatus = report.status;
  }
}
