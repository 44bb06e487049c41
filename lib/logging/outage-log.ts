import { isRedisUnavailable } from '../errors/classify';
import type { Logger } from './logger';

/** Network codes a connection to Redis fails with (ioredis sets `port` on them). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export interface OutageLogOptions {
  /** Redis's ports, so a refused connection to Redis is told from a refused webhook. */
  redisPorts: ReadonlySet<number>;
  /**
   * At most one "still unreachable" line this often while Redis is away.
   * @defaultValue 30000 (config BULLPEN_OUTAGE_SUMMARY_MS)
   */
  summaryIntervalMs?: number;
  now?: () => number;
}

/**
 * The log of a Redis outage, once per process (docs/observability.md, "Redis restarts"):
 * one line when Redis is lost, one when it is back (with how long it was away), and at
 * most one summary line per interval between, never a stack. Every connection, queue
 * worker, heartbeat, sweep and check of a process used to log each failure with its
 * stack: a 30 s outage wrote 1,205 lines (40/s). Redis connection errors logged through
 * `filter(logger)` are counted here instead of written.
 */
export class RedisOutageLog {
  private downSince?: number;
  private errors = 0;
  private sinceSummary = 0;
  private sources = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly logger: Logger,
    private readonly opts: OutageLogOptions,
  ) {
    this.intervalMs = opts.summaryIntervalMs ?? 30_000;
    if (!Number.isInteger(this.intervalMs) || this.intervalMs < 100) {
      throw new RangeError(`The outage summary interval must be an integer of at least 100 ms, got ${this.intervalMs}`);
    }
    this.now = opts.now ?? Date.now;
  }

  /**
   * Whether `err` says this process cannot reach Redis: ioredis's and Redis's own words, or
   * a network error on a Redis port. `fromRedis`: the error came from a Redis client (a
   * socket's `read ECONNRESET` names no port).
   */
  isConnectionError(err: unknown, fromRedis = false): boolean {
    if (isRedisUnavailable(err)) return true;
    const e = err as { code?: unknown; port?: unknown } | null;
    if (typeof e?.code !== 'string' || !CONNECTION_CODES.has(e.code)) return false;
    return fromRedis || (typeof e.port === 'number' && this.opts.redisPorts.has(e.port));
  }

  /** A Redis connection error seen by `source`: the first one logs "Redis lost", the rest are counted. */
  failed(err: unknown, source: string): void {
    this.errors++;
    this.sinceSummary++;
    this.sources.set(source, (this.sources.get(source) ?? 0) + 1);
    if (this.downSince !== undefined) return;
    this.downSince = this.now();
    this.logger.warn({ error: errorSummary(err), source }, 'Redis lost: retrying; further connection errors are counted, not logged');
    this.timer = setInterval(() => this.summary(), this.intervalMs);
    this.timer.unref();
  }

  /** A connection is ready again: logs "Redis back" once, with how long it was away. */
  recovered(): void {
    if (this.downSince === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.logger.info({ downForMs: this.now() - this.downSince, errors: this.errors }, 'Redis back');
    this.downSince = undefined;
    this.errors = 0;
    this.sinceSummary = 0;
    this.sources.clear();
  }

  /** Stops the summary timer (the process closes). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * `logger`, and its children, with Redis connection errors (an `err` field that is one;
   * `connection: 'redis'` marks a line whose error came from a Redis client) at warn or
   * above counted here instead of written. Other lines pass unchanged.
   */
  filter(logger: Logger): Logger {
    return new Proxy(logger, {
      get: (target, prop) => {
        if (prop === 'child') return (...args: Parameters<Logger['child']>) => this.filter(target.child(...args) as unknown as Logger);
        if (prop === 'warn' || prop === 'error' || prop === 'fatal') {
          const write = target[prop].bind(target) as (...args: unknown[]) => void;
          return (...args: unknown[]) => {
            const fields = args[0] as { err?: unknown; connection?: unknown } | null;
            if (typeof fields === 'object' && fields !== null && this.isConnectionError(fields.err, fields.connection === 'redis')) {
              this.failed(fields.err, typeof args[1] === 'string' ? args[1] : prop);
              return;
            }
            write(...args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private summary(): void {
    if (this.downSince === undefined || this.sinceSummary === 0) return;
    const sources = Object.fromEntries(this.sources);
    this.logger.warn({ downForMs: this.now() - this.downSince, errors: this.sinceSummary, sources }, 'Redis still unreachable');
    this.sinceSummary = 0;
    this.sources.clear();
  }
}

function errorSummary(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown } | null;
  return { message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
}
