import { AlertConfigStore } from './alerts/alert-config-store';
import { AlertKeys } from './alerts/alert-keys';
import { AlertStateStore } from './alerts/alert-state-store';
import { Alerter } from './alerts/alerter';
import type { Telemetry } from 'bullmq';
import { AuditLog } from './audit/audit-log';
import { SignInFailureLog } from './audit/sign-in-failures';
import { TenantPseudonyms } from './audit/tenant-pseudonyms';
import { fileSecret } from './fs/file-secret';
import { bullmqTelemetry } from './telemetry/tracing';
import { getConfig, type Config } from './config';
import { HealthChecker } from './health/health-checker';
import type { RedisWatch } from './health/redis-watch';
import { IdempotencyStore } from './idempotency/idempotency-store';
import { DeadLetterStore } from './dlq/dead-letter-store';
import { Dispatcher } from './jobs/dispatcher';
import { JobCatalog } from './jobs/job-catalog';
import type { JobTable } from './jobs/job-definition';
import { QueueRegistry } from './jobs/queues';
import { CancelRelay } from './runtime/cancel-relay';
import { createLogger, type Logger } from './logging/logger';
import { RedisOutageLog } from './logging/outage-log';
import { createRedis, readyClient, redisTarget, type RedisClient, type RedisTarget } from './redis/connection';
import { Keyspace } from './redis/keys';
import type { ScheduleDefinition } from './schedules/schedule-definition';
import { ScheduleService } from './schedules/schedule-service';
import { WebhookStore } from './webhooks/webhook-store';

/** The metric name prefix when neither METRICS_PREFIX nor the application sets one. */
export const DEFAULT_METRICS_PREFIX = 'bullpen_';

export interface BullpenOptions<T extends JobTable = JobTable> {
  /** The application's job types: the runtime and the dashboard know no others (docs/guide.md). */
  jobs: T;
  /** The application's cron schedules, each running one of `jobs`. @defaultValue none */
  schedules?: readonly ScheduleDefinition[];
  /** The application's metric name prefix, used when METRICS_PREFIX is unset. @defaultValue DEFAULT_METRICS_PREFIX */
  metricsPrefix?: string;
  /** The application's job type that delivers the webhook registry's events, one of `jobs`. @defaultValue none */
  webhookJobType?: string;
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
  /** The process's Redis watch (the dashboard's), which the health checker reads and tells. @defaultValue none */
  redisWatch?: RedisWatch;
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
  /** Every metric's name prefix: METRICS_PREFIX, else the application's, else DEFAULT_METRICS_PREFIX. */
  readonly metricsPrefix: string;
  readonly target: RedisTarget;
  readonly keys: Keyspace;
  /** The services' connection: fail-fast for the dashboard, resilient in the worker (see BullpenOptions.connectionRole). */
  readonly redis: RedisClient;
  /** The process's logger, with Redis connection errors counted by `outage` instead of written. */
  readonly logger: Logger;
  /** One line when Redis is lost, one when it is back, a summary at most every BULLPEN_OUTAGE_SUMMARY_MS between. */
  readonly outage: RedisOutageLog;
  readonly alerter: Alerter;
  /** Alerting's setup (rules, channels) and state (firing, resolved, outbox) in Redis (docs/alerts.md). */
  readonly alerts: { keys: AlertKeys; config: AlertConfigStore; state: AlertStateStore };
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
  /** The application's job type that delivers webhook events, if it has one (BullpenOptions.webhookJobType). */
  readonly webhookJobType?: string;
  /** Outcomes of side effects by idempotency key, so retries and replays do not repeat them. */
  readonly idempotency: IdempotencyStore;
  /** Cron schedules on BullMQ Job Schedulers, with operators' overrides stored in Redis. */
  readonly schedules: ScheduleService;
  /** Cancel requests to every worker process (BullMQ's Relay); its node starts on first use. */
  readonly cancels: CancelRelay;

  constructor(opts: BullpenOptions) {
    this.jobs = new JobCatalog(opts.jobs);
    const handled = opts.handledTypes ?? [...this.jobs.handled];
    this.config = opts.config ?? getConfig();
    this.metricsPrefix = this.config.METRICS_PREFIX ?? opts.metricsPrefix ?? DEFAULT_METRICS_PREFIX;
    this.target = opts.redis ?? redisTarget(this.config);
    this.keys = new Keyspace(opts.prefix ?? this.config.BULLPEN_PREFIX);
    const logger = opts.logger ?? createLogger('bullpen', this.config.LOG_LEVEL);
    this.outage = new RedisOutageLog(logger, {
      redisPorts: redisPorts(this.target),
      summaryIntervalMs: this.config.BULLPEN_OUTAGE_SUMMARY_MS,
    });
    this.logger = this.outage.filter(logger);
    this.redis = this.watched(createRedis(this.target, opts.connectionRole ?? 'producer'), 'services connection');
    this.alerter = new Alerter(this.logger);
    const alertKeys = new AlertKeys(this.keys);
    this.alerts = {
      keys: alertKeys,
      config: new AlertConfigStore(this.redis, alertKeys),
      state: new AlertStateStore(this.redis, alertKeys),
    };
    this.telemetry = bullmqTelemetry(this.config.BULLPEN_TRACES);
    this.queues = new QueueRegistry(this.redis, this.keys, this.jobs, this.telemetry);
    this.dispatcher = new Dispatcher(this.queues, new Set(handled), {
      timeoutMs: this.config.BULLPEN_DISPATCH_TIMEOUT_MS,
      maxPayloadBytes: this.config.BULLPEN_MAX_PAYLOAD_BYTES,
    });
    const DAY = 24 * 3_600_000;
    const config = this.config;
    const pseudonyms = new TenantPseudonyms(
      this.redis,
      this.keys,
      async () => config.AUDIT_PSEUDONYM_SECRET ?? fileSecret(config.dataDir, 'audit-pseudonym-secret'),
    );
    this.audit = new AuditLog(this.redis, this.keys, { retentionMs: config.AUDIT_RETENTION_DAYS * DAY, pseudonyms });
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
    this.webhookJobType = opts.webhookJobType;
    this.webhooks = new WebhookStore(this.redis, this.keys, { alerter: this.alerter, logger: this.logger, jobType: opts.webhookJobType });
    this.idempotency = new IdempotencyStore(this.redis, this.keys);
    this.cancels = new CancelRelay({ connection: this.redis, keys: this.keys, logger: this.logger });
    this.schedules = new ScheduleService(this, { definitions: opts.schedules ?? [], handledTypes: handled });
    this.health = new HealthChecker({
      redis: this.redis,
      queues: this.queues,
      types: handled.filter((t) => this.jobs.has(t)),
      minWorkers: this.config.HEALTH_MIN_WORKERS,
      deadLetterThreshold: this.config.DLQ_ALERT_THRESHOLD,
      deadLetters: () => this.dlq.pendingCount(),
      watch: opts.redisWatch,
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
    return this.watched(createRedis(this.target, 'worker'), 'worker connection');
  }

  /** A connection's errors and recoveries go to the outage log (one line per state change). */
  private watched(c: RedisClient, source: string): RedisClient {
    // A connection's own error events are about reaching Redis (a command's errors reject its promise).
    c.on('error', (err) => this.outage.failed(err, source));
    c.on('ready', () => this.outage.recovered());
    return c;
  }

  async close(): Promise<void> {
    this.outage.close();
    await this.cancels.close();
    await this.queues.close();
    this.redis.disconnect();
  }
}

/** The ports Redis listens on for `target`, so the outage log tells its refused connections from others. */
function redisPorts(target: RedisTarget): Set<number> {
  if (target.clusterNodes) return new Set(target.clusterNodes.map((n) => Number(n.split(':').pop())));
  if (target.url) return new Set([Number(new URL(target.url).port || 6379)]);
  return new Set([target.port ?? 6379]);
}

/** Builds the runtime's services for an application's job table and schedules. */
export function createBullpen<const T extends JobTable>(opts: BullpenOptions<T>): Bullpen {
  return new Bullpen(opts);
}
