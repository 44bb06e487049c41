import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Config } from '../config';
import { AppError } from '../errors/app-error';
import type { HealthChecker } from '../health/health-checker';
import { silentLogger, type Logger } from '../logging/logger';
import type { WorkerMetrics } from './worker-metrics';

const optionsSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(0).max(65_535),
  token: z.string().min(16, 'at least 16 characters').optional(),
});

export interface MetricsServerOptions {
  metrics: WorkerMetrics;
  health: HealthChecker;
  /** Supplies the port (METRICS_PORT) and token (METRICS_TOKEN) not given below. */
  config?: Pick<Config, 'METRICS_PORT' | 'METRICS_TOKEN'>;
  /**
   * Loopback by default: exposing the port is a deliberate act (bind 0.0.0.0 in a
   * container, ideally with a token).
   * @defaultValue '127.0.0.1'
   */
  host?: string;
  /** 0 picks a free port (tests). @defaultValue config.METRICS_PORT, else 9464 */
  port?: number;
  /** When set, both endpoints need `Authorization: Bearer <token>`. @defaultValue config.METRICS_TOKEN */
  token?: string;
  logger?: Logger;
}

const REALM = 'Bearer realm="bullpen-worker"';

/**
 * The worker's own HTTP port: `GET /metrics` (Prometheus text format) and
 * `GET /healthz` (the health report; 503 when unhealthy, so a load balancer or an
 * alert can act on the status code alone). Plain node:http: two routes do not
 * justify a framework in the worker process.
 */
export class MetricsServer {
  private readonly server: Server;
  private readonly host: string;
  private readonly port: number;
  private readonly tokenDigest?: Buffer;
  private readonly logger: Logger;

  constructor(private readonly opts: MetricsServerOptions) {
    const parsed = optionsSchema.safeParse({
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? opts.config?.METRICS_PORT ?? 9464,
      token: opts.token ?? opts.config?.METRICS_TOKEN,
    });
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new AppError('VALIDATION', `Invalid metrics server options: ${issues.join('; ')}`, { issues });
    }
    this.host = parsed.data.host;
    this.port = parsed.data.port;
    // Comparing fixed-length digests keeps the comparison constant-time whatever the
    // length of what a client sends.
    this.tokenDigest = parsed.data.token === undefined ? undefined : sha256(parsed.data.token);
    this.logger = opts.logger ?? silentLogger;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.logger.error({ err, path: req.url }, 'metrics endpoint failed');
        if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
        else res.destroy();
      });
    });
    // A scraper that opens a connection and sends nothing must not hold it forever.
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 5_000;
  }

  /** Listens; resolves with the bound port (useful with port 0). */
  start(): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) =>
        reject(new AppError('UNAVAILABLE', `Metrics server cannot listen on ${this.host}:${this.port}: ${err.message}`));
      this.server.once('error', onError);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError);
        const port = (this.server.address() as AddressInfo).port;
        this.logger.info({ host: this.host, port, auth: this.tokenDigest !== undefined }, 'metrics server listening');
        resolve(port);
      });
    });
  }

  /** Stops listening and drops open keep-alive connections. */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.server.close((err) => (err ? reject(err) : resolve()));
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics' && path !== '/healthz') return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    const auth = this.authorize(req.headers.authorization);
    if (auth !== 'ok') {
      res.setHeader('WWW-Authenticate', auth === 'missing' ? REALM : `${REALM}, error="invalid_token"`);
      return send(res, 401, 'text/plain; charset=utf-8', 'unauthorized\n');
    }
    if (path === '/metrics') {
      const { contentType, body } = await this.opts.metrics.render();
      return send(res, 200, contentType, body);
    }
    const report = await this.opts.health.check();
    return send(res, report.status === 'unhealthy' ? 503 : 200, 'application/json; charset=utf-8', JSON.stringify(report));
  }

  private authorize(header: string | undefined): 'ok' | 'missing' | 'invalid' {
    if (!this.tokenDigest) return 'ok';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) return 'missing';
    return timingSafeEqual(sha256(match[1]), this.tokenDigest) ? 'ok' : 'invalid';
  }
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
