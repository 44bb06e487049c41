import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureFirstAdmin } from '@/dashboard/auth/first-admin';
import { generatePassword } from '@/dashboard/auth/password';
import { UserStore } from '@/dashboard/auth/user-store';
import { shippedApp } from '@/jobs/shipped-app';
import { createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { buildDashboardIfNeeded } from '../../../scripts/dashboard-build';
import { startControlServer, type ControlServer, type RedisSupervisor, type WorkerSupervisor } from './control-server';
import { e2eStateSchema, type E2eState } from './e2e-state';
import { ManagedProcess, waitForHttp, type ExitInfo } from './managed-process';
import { startSlowEmbeddingsServer, type SlowEmbeddingsServer } from './slow-embeddings-server';

export interface StackOptions {
  /** The repository root. */
  root: string;
  /**
   * Time the fake embeddings service takes per call: with batches of one text, the
   * pace of an embedding-batch job's progress bar.
   * @defaultValue 400
   */
  embeddingDelayMs?: number;
  log?: (line: string) => void;
}

/**
 * The product as the README runs it in production — `npm run worker` and `npm run web`
 * (`scripts/web-server.ts`, the Next.js handler behind node:http) beside a redis-server — isolated for one e2e run: its own
 * redis-server on a free port with data in a temp dir, free ports for the dashboard
 * and the worker's metrics, a random key prefix, the first admin created the way
 * `npm start` creates it, plus an operator and a viewer.
 *
 * The worker is a child of this (the runner) process so tests can stop and restart it
 * through the control endpoint. Everything started is stopped by PID in `stop()`.
 */
export class E2eStack implements WorkerSupervisor, RedisSupervisor {
  private redis?: EmbeddedRedis;
  private redisPaused = false;
  private embeddings?: SlowEmbeddingsServer;
  private worker?: ManagedProcess;
  private dashboard?: ManagedProcess;
  private control?: ControlServer;
  private dataDir?: string;
  private env: Record<string, string> = {};
  private state?: E2eState;
  private readonly logDir: string;
  private readonly log: (line: string) => void;

  private constructor(private readonly opts: StackOptions) {
    this.logDir = path.join(opts.root, '.data', 'e2e-logs');
    this.log = opts.log ?? ((line) => console.log(line));
  }

  /** Starts everything; on any failure stops what did start and rethrows. */
  static async start(opts: StackOptions): Promise<E2eStack> {
    const stack = new E2eStack(opts);
    try {
      await stack.boot();
      return stack;
    } catch (err) {
      await stack.stop();
      throw err;
    }
  }

  /** The JSON file the tests read (its path is handed over in BULLPEN_E2E_STATE). */
  get stateFile(): string {
    if (!this.dataDir) throw new Error('the e2e stack is not started');
    return path.join(this.dataDir, 'e2e-state.json');
  }

  private async boot(): Promise<void> {
    const { root } = this.opts;
    // The build first: it can take minutes, and nothing else should be running meanwhile.
    // BULLPEN_E2E_REUSE_BUILD=1 tests whatever build exists: for iterating on specs only, never in CI.
    const build = await buildDashboardIfNeeded(root, {
      log: (line) => this.log(`e2e: ${line}`),
      reuseStale: process.env.BULLPEN_E2E_REUSE_BUILD === '1',
    });
    this.log(`e2e: dashboard build ${build.outcome === 'built' ? 'done' : 'is up to date'}`);

    this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-e2e-'));
    rmSync(this.logDir, { recursive: true, force: true });
    mkdirSync(this.logDir, { recursive: true });
    const [redisPort, webPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    this.redis = await startEmbeddedRedis({ port: redisPort, dir: path.join(this.dataDir, 'redis') });
    if (!this.redis.child) throw new Error(`port ${redisPort} already had a redis-server; refusing to share it`);
    this.embeddings = await startSlowEmbeddingsServer(this.opts.embeddingDelayMs ?? 400);

    const prefix = `e2e-${randomBytes(4).toString('hex')}`;
    this.env = {
      REDIS_URL: this.redis.url,
      BULLPEN_PREFIX: prefix,
      BULLPEN_DATA_DIR: this.dataDir,
      PORT: String(webPort),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      // The dead-letter spec's webhook receiver listens on loopback.
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      EMBEDDINGS_URL: this.embeddings.url,
      // Restarts in the specs wait for this at most; their jobs take a few seconds.
      SHUTDOWN_GRACE_MS: '15000',
      NEXT_TELEMETRY_DISABLED: '1',
    };
    const users = await this.createUsers();

    await this.startWorker();
    this.dashboard = ManagedProcess.start('dashboard', ['--import', 'tsx', path.join(root, 'scripts', 'web-server.ts')], {
      cwd: root,
      env: { ...this.childEnv(), PORT: String(webPort), HOST: '127.0.0.1' },
      logFile: path.join(this.logDir, 'dashboard.log'),
    });
    const baseURL = `http://127.0.0.1:${webPort}`;
    await waitForHttp(`${baseURL}/api/health`, { proc: this.dashboard, timeoutMs: 60_000 });
    this.control = await startControlServer(this);

    this.state = e2eStateSchema.parse({
      baseURL,
      redisPort,
      prefix,
      dataDir: this.dataDir,
      env: this.env,
      controlUrl: this.control.url,
      logDir: this.logDir,
      users,
    });
    writeFileSync(this.stateFile, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    this.log(`e2e: dashboard ${baseURL}, redis ${this.redis.url}, prefix ${prefix}, logs in ${this.logDir}`);
  }

  /** The first admin exactly as `npm start` makes it, then an operator and a viewer. */
  private async createUsers(): Promise<E2eState['users']> {
    const bullpen = createBullpen({
      ...shippedApp,
      config: loadConfig(this.env),
      logger: silentLogger,
    });
    try {
      await readyClient(bullpen.redis);
      const admin = await ensureFirstAdmin(bullpen);
      if (!admin.created) throw new Error('the fresh e2e Redis already had users');
      const adminPassword = readFileSync(path.join(this.dataDir!, 'admin-password'), 'utf8').trim();
      const store = new UserStore(bullpen.redis, bullpen.keys);
      const made = { operator: generatePassword(), viewer: generatePassword() };
      await store.create({ username: 'e2e-operator', role: 'operator', password: made.operator });
      await store.create({ username: 'e2e-viewer', role: 'viewer', password: made.viewer });
      return {
        admin: { username: 'admin', password: adminPassword },
        operator: { username: 'e2e-operator', password: made.operator },
        viewer: { username: 'e2e-viewer', password: made.viewer },
      };
    } finally {
      await bullpen.close();
    }
  }

  private childEnv(): NodeJS.ProcessEnv {
    return productEnv(this.env);
  }

  async startWorker(): Promise<{ pid: number }> {
    if (this.worker?.running) throw new Error(`the worker is already running (pid ${this.worker.pid})`);
    const worker = ManagedProcess.start('worker', ['--import', 'tsx', 'worker/main.ts'], {
      cwd: this.opts.root,
      env: this.childEnv(),
      logFile: path.join(this.logDir, 'worker.log'),
    });
    this.worker = worker;
    // The metrics server is the last thing the worker starts: once it answers, the
    // consumers and the schedules are up.
    await waitForHttp(`http://127.0.0.1:${this.env.METRICS_PORT}/healthz`, { proc: worker, timeoutMs: 60_000 });
    return { pid: worker.pid };
  }

  async stopWorker(): Promise<ExitInfo> {
    if (!this.worker?.running) throw new Error('the worker is not running');
    return this.worker.stop('SIGTERM');
  }

  workerStatus(): { pid: number | null; running: boolean } {
    return { pid: this.worker?.pid ?? null, running: this.worker?.running ?? false };
  }

  /** Whether the redis-server this stack started still runs (a child killed by a signal has no exit code, only a signal). */
  private redisRunning(): boolean {
    const child = this.redis?.child;
    return Boolean(child && child.exitCode === null && child.signalCode === null);
  }

  private redisPid(): number {
    const pid = this.redisRunning() ? this.redis?.child?.pid : undefined;
    if (!pid) throw new Error('the redis-server is not running');
    return pid;
  }

  pauseRedis(): { pid: number } {
    const pid = this.redisPid();
    process.kill(pid, 'SIGSTOP');
    this.redisPaused = true;
    return { pid };
  }

  resumeRedis(): { pid: number } {
    const pid = this.redisPid();
    process.kill(pid, 'SIGCONT');
    this.redisPaused = false;
    return { pid };
  }

  async killRedis(): Promise<{ pid: number }> {
    const pid = this.redisPid();
    const child = this.redis!.child!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.redisPaused = false;
    return { pid };
  }

  async startRedis(): Promise<{ pid: number }> {
    if (this.redisRunning()) throw new Error(`the redis-server is already running (pid ${this.redis?.child?.pid})`);
    const { redisPort } = this.state!;
    this.redis = await startEmbeddedRedis({ port: redisPort, dir: path.join(this.dataDir!, 'redis') });
    return { pid: this.redisPid() };
  }

  redisStatus(): { pid: number | null; running: boolean; paused: boolean } {
    const running = this.redisRunning();
    return { pid: running ? (this.redis?.child?.pid ?? null) : null, running, paused: running && this.redisPaused };
  }

  /** Stops the dashboard, the worker, the fake embeddings service and Redis, then removes the data. */
  async stop(): Promise<void> {
    const steps: Array<[string, () => Promise<unknown> | undefined]> = [
      ['control endpoint', () => this.control?.close()],
      ['dashboard', () => this.dashboard?.stop('SIGTERM', 15_000)],
      ['worker', () => this.worker?.stop('SIGTERM')],
      ['embeddings service', () => this.embeddings?.close()],
      ['redis-server', () => (this.redisPaused ? (this.resumeRedis(), this.redis?.stop()) : this.redis?.stop())],
    ];
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        this.log(`e2e: stopping the ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The environment of a product process the e2e run starts: the runner's own, without any of
 * the caller's Bullpen settings (a developer's REDIS_URL, say), then `env` on top.
 */
export function productEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(REDIS_|BULLPEN_|METRICS_|WEBHOOK_|EMBEDDINGS_|LLM_|SLACK_|WORKER_TYPES|SESSION_SECRET|TRUSTED_PROXIES|PORT$)/.test(k),
    ),
  );
  return { ...inherited, ...env } as NodeJS.ProcessEnv;
}
