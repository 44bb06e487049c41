import { Alerter } from './alerts/alerter';
import type { Telemetry } from 'bullmq';
import { AuditLog } from './audit/audit-log';
import { SignInFailureLog } from './audit/sign-in-failures';
import { bullmqTelemetry } from './telemetry/tracing';
import { getConfig, type Config } from './config';
import { HealthChecker } from './health/health-checker';
import { IdempotencyStore } from './idempotency/idempotency-store';
import { DeadLetterStore } from './dlq/dead-letter-store';
import { Dispatcher } from './jobs/dispatcher';
import { JobCatalog } from './jobs/job-catalog';
import type { JobTable } from './jobs/job-definition';
import { QueueRegistry } from './jobs/queues';
import { createLogger, type Logger } from './logging/logger';
import { createRedis, readyClient, redisTarget, type RedisClient, type RedisTarget } from './redis/connection';
import { Keyspace } from './redis/keys';
import type { ScheduleDefinition } from './schedules/schedule-definition';
import { ScheduleService } from './schedules/schedule-service';
import { WebhookStore } from './webhooks/webhook-store';

export interface BullpenOptions<T extends JobTable = JobTable> {
  /** The application's job types: the runtime and the dashboard know no others (docs/guide.md). */
  jobs: T;
  /** The application's cron schedules, each running one of `jobs`. @defaultValue none */
  schedules?: readonly ScheduleDefinition[];
  config?: Config;
  /** Where Redis is; default: from the config. */
  redis?: RedisTarget;
  /** Key root; default: BULLPEN_PREFIX. Tests pass a unique one. */
  prefix?: string;
  logger?: Logger;
  /** Types the dispatcher accepts; default: those of `jobs` with a handler. */
  handledTypes?: readonly string[];
  /**
   * The role of the services' connection: `producer` (fail fast: the dashboard, CLIs,
   * dispatchers) or `resilient` (ride out a Redis restart: the worker process).
   * @defaultValue `producer`
   */
  connectionRole?: 'producer' | 'resilient';
}

/**
 * The runtime's services on one connection (fail-fast or resilient) and one key layout,
 * built for the job table they are handed. Each process's composition root (the worker,
 * the dashboard, a CLI, a test) makes one with `createBullpen` and shares it; nothing
 * else opens Redis connections for these services.
 */
export class Bullpen {
  /** The job table, checked and looked up by name. */
  readonly jobs: JobCatalog;
  readonly config: Config;
  readonly target: RedisTarget;
  readonly keys: Keyspace;
  /** The services' connection: fail-fast for the dashboard, resilient in the worker (see BullpenOptions.connectionRole). */
  readonly redis: RedisClient;
  readonly logger: Logger;
  readonly alerter: Alerter;
  readonly queues: QueueRegistry;
  readonly dispatcher: Dispatcher;
  readonly audit: AuditLog;
  /** Refused sign-ins, aggregated per client per minute apart from the audit. */
  readonly signInFailures: SignInFailureLog;
  /** BullMQ's OpenTelemetry hooks when BULLPEN_TRACES is on (lib/telemetry/tracing.ts). */
  readonly telemetry?: Telemetry;
  /** Dead letters: final failures, indexed for filtering, replay, discard, purge and retention. */
  readonly dlq: DeadLetterStore;
  /** Redis, workers, queues and dead letters: healthy / degraded / unhealthy. */
  readonly health: HealthChecker;
  /** The webhook registry, its delivery records and auto-disable. */
  readonly webhooks: WebhookStore;
  /** Outcomes of side effects by idempotency key, so retries and replays do not repeat them. */
  readonly idempotency: IdempotencyStore;
  /** Cron schedules on BullMQ Job Schedulers, with operators' overrides stored in Redis. */
  readonly schedules: ScheduleService;

  constructor(opts: BullpenOptions) {
    this.jobs = new JobCatalog(opts.jobs);
    const handled = opts.handledTypes ?? [...this.jobs.handled];
    this.config = opts.config ?? getConfig();
    this.target = opts.redis ?? redisTarget(this.config);
    this.keys = new Keyspace(opts.prefix ?? this.config.BULLPEN_PREFIX);
    this.logger = opts.logger ?? createLogger('bullpen', this.config.LOG_LEVEL);
    this.redis = createRedis(this.target, opts.connectionRole ?? 'producer');
    this.redis.on('error', (err) => this.logger.debug({ err }, 'redis connection error'));
    this.alerter = new Alerter(this.logger);
    this.telemetry = bullmqTelemetry(this.config.BULLPEN_TRACES);
    this.queues = new QueueRegistry(this.redis, this.keys, this.jobs, this.telemetry);
    this.dispatcher = new Dispatcher(this.queues, new Set(handled), {
      timeoutMs: this.config.BULLPEN_DISPATCH_TIMEOUT_MS,
      maxPayloadBytes: this.config.BULLPEN_MAX_PAYLOAD_BYTES,
    });
    const DAY = 24 * 3_600_000;
    this.audit = new AuditLog(this.redis, this.keys, { retentionMs: this.config.AUDIT_RETENTION_DAYS * DAY });
    this.signInFailures = new SignInFailureLog(this.redis, this.keys, { retentionMs: this.config.SIGN_IN_FAILURES_RETENTION_DAYS * DAY });
    this.dlq = new DeadLetterStore({
      redis: this.redis,
      keys: this.keys,
      queues: this.queues,
      alerter: this.alerter,
      alertThreshold: this.config.DLQ_ALERT_THRESHOLD,
      maxPayloadBytes: this.config.BULLPEN_MAX_PAYLOAD_BYTES,
      logger: this.logger,
    });
    this.webhooks = new WebhookStore(this.redis, this.keys, { alerter: this.alerter, logger: this.logger });
    this.idempotency = new IdempotencyStore(this.redis, this.keys);
    this.schedules = new ScheduleService(this, { definitions: opts.schedules ?? [], handledTypes: handled });
    this.health = new HealthChecker({
      redis: this.redis,
      queues: this.queues,
      types: handled.filter((t) => this.jobs.has(t)),
      minWorkers: this.config.HEALTH_MIN_WORKERS,
      deadLetterThreshold: this.config.DLQ_ALERT_THRESHOLD,
      deadLetters: () => this.dlq.pendingCount(),
      logger: this.logger,
    });
  }

  /** This Bullpen once its connection is ready (the one readiness gate, `readyClient`); AppError UNAVAILABLE otherwise. */
  async ready(timeoutMs?: number): Promise<this> {
    await readyClient(this.redis, timeoutMs);
    return this;
  }

  /** A new `worker`-role connection (BullMQ workers must never give up a command). */
  workerConnection(): RedisClient {
    const c = createRedis(this.target, 'worker');
    c.on('error', (err) => this.logger.debug({ err }, 'worker redis connection error'));
    return c;
  }

  async close(): Promise<void> {
    await this.queues.close();
    this.redis.disconnect();
  }
}

/** Builds the runtime's services for an application's job table and schedules. */
export function createBullpen<const T extends JobTable>(opts: BullpenOptions<T>): Bullpen {
  return new Bullpen(opts);
}
