import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_MAX_PAYLOAD_BYTES, MAX_MAX_PAYLOAD_BYTES, MIN_MAX_PAYLOAD_BYTES } from './jobs/payload-limit';

/**
 * Every environment variable the runtime reads, parsed once (an application's own are
 * its settings: lib/app/app-definition.ts). A wrong value stops the process at start
 * with a message naming the variable and the rule, instead of surfacing later as a
 * confusing runtime error.
 */
const port = z.coerce.number().int().min(1).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

export const configSchema = z.object({
  /** A redis:// or rediss:// URL. Unset: the embedded redis-server under `.data/redis`. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  /** Comma-separated host:port seed list of a Redis Cluster; wins over REDIS_URL. */
  REDIS_CLUSTER_NODES: list.pipe(z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'each node must be host:port')).min(1)).optional(),
  /** Port of the embedded redis-server. */
  BULLPEN_REDIS_PORT: port.default(6390),
  /**
   * The embedded redis-server's AOF fsync policy. `everysec` (Redis's default) can lose
   * up to about one second of acknowledged writes on a crash; `always` loses none and
   * costs throughput (docs/benchmarks.md measures it).
   */
  BULLPEN_REDIS_FSYNC: z.enum(['everysec', 'always']).default('everysec'),
  /** Root of every Redis key Bullpen writes; one hash tag per queue is added below it. */
  BULLPEN_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only (braces are added per queue)')
    .default('bullpen'),
  /** Where the embedded Redis, archives, exports and the generated admin password live. */
  BULLPEN_DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port of the worker's Prometheus endpoint. */
  METRICS_PORT: port.default(9464),
  /**
   * Metric name prefix. Unset: the application's (the shipped application's is `ruvbot_`,
   * its requirements' names), else `bullpen_` (lib/bullpen.ts, DEFAULT_METRICS_PREFIX).
   */
  METRICS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'a Prometheus metric name prefix')
    .optional(),
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** How long SIGTERM waits for in-flight jobs before exiting anyway. */
  SHUTDOWN_GRACE_MS: positiveInt.default(30_000),
  /** Milliseconds between BullMQ stalled-job checks (a killed worker's jobs return after this). */
  STALLED_INTERVAL_MS: positiveInt.default(30_000),
  /**
   * How long a job's lock lasts without renewal (renewed every half of it). A killed
   * worker's jobs are seen as stalled only once their lock expires: recovery takes
   * about this plus STALLED_INTERVAL_MS.
   */
  LOCK_DURATION_MS: positiveInt.default(30_000),
  /** How often the worker sweeps BullMQ's failed sets for final failures missing from the DLQ. */
  RECONCILE_INTERVAL_MS: positiveInt.default(60_000),
  /**
   * How often the worker re-applies the schedules, putting back a next run BullMQ lost
   * (ScheduleService.repair); 0 turns it off. At least 1000 otherwise.
   */
  SCHEDULE_REPAIR_INTERVAL_MS: z.coerce
    .number()
    .int()
    .refine((v) => v === 0 || v >= 1_000, 'either 0 (off) or at least 1000')
    .default(60_000),
  /**
   * How long a dispatch may wait for Redis (its connection's readiness included) before it
   * fails with REDIS_UNAVAILABLE, retryable (docs/producers.md, "During a Redis outage").
   */
  BULLPEN_DISPATCH_TIMEOUT_MS: positiveInt.default(5_000),
  /** Days the operators' audit keeps an entry (trimmed by time at each append; docs/security.md). */
  AUDIT_RETENTION_DAYS: positiveInt.default(400),
  /** Days the aggregated refused sign-ins are kept (their own stream; docs/security.md). */
  SIGN_IN_FAILURES_RETENTION_DAYS: positiveInt.default(30),
  /**
   * The most bytes of JSON a job's data may take as BullMQ stores it: a dispatch or a
   * replay over it is refused (PAYLOAD_TOO_LARGE), and a plain producer's job over it
   * fails for good at pickup with a dead letter that keeps a preview (docs/producers.md).
   */
  BULLPEN_MAX_PAYLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(MIN_MAX_PAYLOAD_BYTES, `at least ${MIN_MAX_PAYLOAD_BYTES} bytes`)
    .max(MAX_MAX_PAYLOAD_BYTES, `at most ${MAX_MAX_PAYLOAD_BYTES} bytes (64 MiB)`)
    .default(DEFAULT_MAX_PAYLOAD_BYTES),
  /**
   * While Redis is unreachable, a process logs one line when it is lost, one when it is back,
   * and at most one summary line this often between (docs/observability.md, "Redis restarts").
   */
  BULLPEN_OUTAGE_SUMMARY_MS: z.coerce.number().int().min(100).default(30_000),
  /** DLQ size that turns health unhealthy and raises an alert. */
  DLQ_ALERT_THRESHOLD: positiveInt.default(100),
  /**
   * How often the worker holding the alerts lease evaluates the rules and sends what the
   * outbox holds (docs/alerts.md); 0 turns the runtime's alerting off. At least 1000 otherwise.
   */
  ALERTS_INTERVAL_MS: z.coerce
    .number()
    .int()
    .refine((v) => v === 0 || v >= 1_000, 'either 0 (off) or at least 1000')
    .default(5_000),
  /** The dashboard's public address, for the links in alert messages (e.g. https://jobs.example.com); none: paths only. */
  BULLPEN_DASHBOARD_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Minimum connected workers per queue for the workers check to be healthy. */
  HEALTH_MIN_WORKERS: z.coerce.number().int().min(0).default(1),
  /** Hosts (name or IP) that webhooks may target even though they are private or loopback. */
  WEBHOOK_ALLOW_HOSTS: list.default([]),
  /**
   * Key prefixes under which the dashboard looks for BullMQ queues it does not define
   * (comma-separated, e.g. `bull,{jobs}`): each queue found is shown as foreign with
   * the generic operations. Default: only Bullpen's own prefix (docs/dashboard.md).
   */
  BULLPEN_QUEUE_PREFIXES: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[A-Za-z0-9_.{}-]{1,64}$/, 'a prefix holds letters, digits and _ . { } - only')).max(20))
    .optional(),
  /**
   * OpenTelemetry traces of dispatches and job runs through bullmq-otel (`1` or `true`);
   * exported as the standard OTEL_* variables say. Off by default (docs/observability.md).
   */
  BULLPEN_TRACES: z
    .enum(['0', '1', 'true', 'false'], 'one of 0, 1, true, false')
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  /**
   * The worker's hourly history of each queue (counts, run-time and wait percentiles) that the
   * dashboard's 24 h, 7 d and 30 d charts read (`1`/`true`, or `0`/`false` to write none;
   * docs/observability.md). On by default.
   */
  BULLPEN_HISTORY: z
    .enum(['0', '1', 'true', 'false'], 'one of 0, 1, true, false')
    .default('1')
    .transform((v) => v === '1' || v === 'true'),
  /**
   * Each attempt of a job kept in its job's hash (start, end, worker, outcome, error, backoff;
   * the job page's timeline, docs/architecture.md#the-attempt-record): `1`/`true`, or
   * `0`/`false` to record none. On by default.
   */
  BULLPEN_ATTEMPT_RECORD: z
    .enum(['0', '1', 'true', 'false'], 'one of 0, 1, true, false')
    .default('1')
    .transform((v) => v === '1' || v === 'true'),
  /** Restrict this worker process to some job types (comma-separated); default all. */
  WORKER_TYPES: list.optional(),
  /** Port of the dashboard. */
  PORT: port.default(3000),
  /**
   * Proxies (IPs or CIDRs) whose X-Forwarded-For / X-Forwarded-Proto the dashboard
   * trusts. Unset: forwarding headers are ignored and the socket's peer is the client.
   */
  TRUSTED_PROXIES: list.default([]),
  /**
   * Seals the dashboard's session cookies (iron-session). Unset: a random secret is
   * generated once into `<dataDir>/session-secret` (mode 0600) and reused.
   */
  SESSION_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * Keys the audit's tenant pseudonyms (lib/audit/tenant-pseudonyms.ts). Unset: a random
   * secret generated once into `<dataDir>/audit-pseudonym-secret`; set it when the worker
   * and the dashboard run on several hosts, so they agree.
   */
  AUDIT_PSEUDONYM_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * The application the worker, the dashboard and the CLIs run: a name from the registry
   * (applications.ts), never a path. @defaultValue `shipped`, the 18 job types of jobs/
   */
  BULLPEN_APP: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "an application's name from applications.ts (lowercase letters, digits, -), not a path")
    .default('shipped'),
});

/**
 * The runtime's settings, plus the variables they were read from (`env`), from which an
 * application reads its own (lib/app/app-definition.ts, `loadAppSettings`).
 */
export type Config = z.infer<typeof configSchema> & { dataDir: string; env: Readonly<Record<string, string>> };

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` (default: process.env); throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.BULLPEN_DATA_DIR), env: cleaned };
}

let cached: Config | undefined;
/** The process-wide configuration, parsed on first use. */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

/**
 * For a process's entry point: the configuration, or the ConfigError's message on
 * stderr and exit 1 — a wrong variable stops the start with the rule, not a stack.
 */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
