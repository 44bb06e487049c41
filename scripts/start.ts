/**
 * Starts the whole product on one machine with no configuration: the embedded
 * redis-server (unless REDIS_URL / REDIS_CLUSTER_NODES point elsewhere), the worker
 * and the dashboard; prints the URL and how to sign in. Ctrl-C stops all three in
 * order (dashboard, worker with its grace period, then Redis).
 *
 *   bash scripts/up.sh            # installs what is missing, then runs this
 *   bash scripts/up.sh --demo     # also sends a realistic mix of demo jobs
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureFirstAdmin } from '@/dashboard/auth/first-admin';
import { selectedApp } from '@/applications';
import { shippedApp } from '@/jobs/shipped-app';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import { loadConfig, loadConfigOrExit } from '@/lib/config';
import { readyClient } from '@/lib/redis/connection';
import { SHUTDOWN_MESSAGE } from '@/lib/runtime/shutdown';
import { embeddedPasswordFile, embeddedRedisPassword } from '@/lib/redis/embedded-password';
import { startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { buildDashboardIfNeeded } from './dashboard-build';

const root = path.resolve(__dirname, '..');

function log(line: string): void {
  console.log(`bullpen: ${line}`);
}

/** `ipc`: a channel to ask the child to stop with SHUTDOWN_MESSAGE rather than a signal (the worker). */
function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, opts: { ipc?: boolean } = {}): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: opts.ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit' });
  child.on('exit', (code, signal) => {
    // Ctrl-C reaches every process of the terminal's group at once: a child may end
    // before our own handler has run. Only an exit nobody asked for stops the rest.
    setTimeout(() => {
      if (!shuttingDown) {
        log(`${name} exited (${signal ?? code}); stopping everything`);
        void shutdown(1);
      }
    }, 1_000).unref();
  });
  return child;
}

let shuttingDown = false;
/** `stopAfterMs`: how long a child may take to stop on SIGTERM before it is killed. */
const children: Array<{ name: string; child: ChildProcess; stopAfterMs: number }> = [];
let redis: EmbeddedRedis | undefined;

async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  // Dashboard first, then the worker (it finishes running jobs), then Redis.
  for (const { name, child, stopAfterMs } of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    log(`stopping ${name}...`);
    await new Promise<void>((resolve) => {
      // next start waits for open connections, and an open dashboard tab keeps polling:
      // past its time the child is killed rather than holding the whole stop.
      const timer = setTimeout(() => {
        log(`${name} did not stop within ${stopAfterMs / 1_000} s; killing it`);
        child.kill('SIGKILL');
      }, stopAfterMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      // A Ctrl-C has already reached the worker with the rest of the terminal's process
      // group: a SIGTERM now would be its second signal, which means "do not wait for the
      // running jobs". The message asks for the same graceful stop, and is a no-op if the
      // worker is already stopping.
      if (child.connected) child.send(SHUTDOWN_MESSAGE);
      else child.kill('SIGTERM');
    });
  }
  if (redis?.child) {
    log('stopping redis-server...');
    await redis.stop();
  }
  process.exit(code);
}

async function main(): Promise<void> {
  let config = loadConfigOrExit();
  // Before anything starts: a BULLPEN_APP that names no application stops here, with the known names.
  const app = selectedApp(config);
  const demo = process.argv.includes('--demo');
  if (demo && app.name !== shippedApp.name) throw new Error(`--demo seeds the shipped application's data; BULLPEN_APP is ${app.name}`);
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

  if (!config.REDIS_URL && !config.REDIS_CLUSTER_NODES) {
    redis = await startEmbeddedRedis({
      port: config.BULLPEN_REDIS_PORT,
      dir: path.join(config.dataDir, 'redis'),
      password: embeddedRedisPassword(config.dataDir, true),
      fsync: config.BULLPEN_REDIS_FSYNC,
      ownProcessGroup: true,
    });
    const where = `127.0.0.1:${redis.port}`;
    log(
      redis.child
        ? `redis-server started on ${where} (data in ${path.join(config.dataDir, 'redis')}, password in ${embeddedPasswordFile(config.dataDir)})`
        : `reusing the redis-server on ${where}`,
    );
    env.REDIS_URL = redis.url;
    config = loadConfig(env);
  }

  const bullpen = createAppBullpen(app, { config });
  await readyClient(bullpen.redis);
  const admin = await ensureFirstAdmin(bullpen);
  await bullpen.close();

  await buildDashboardIfNeeded(root, { log });

  // The worker's own grace period lets running jobs finish; the dashboard holds no work.
  children.push({
    name: 'worker',
    child: startChild('worker', ['--import', 'tsx', 'worker/main.ts'], env, { ipc: true }),
    stopAfterMs: config.SHUTDOWN_GRACE_MS + 5_000,
  });
  children.push({
    name: 'dashboard',
    child: startChild('dashboard', ['--import', 'tsx', 'scripts/web-server.ts'], {
      ...env,
      PORT: String(config.PORT),
      HOST: process.env.HOST ?? '127.0.0.1',
    }),
    stopAfterMs: 5_000,
  });

  const url = `http://${process.env.HOST ?? '127.0.0.1'}:${config.PORT}`;
  // The URL is printed once it answers, so the first click on it works.
  await waitUntilAnswering(`${url}/api/health`, children[children.length - 1].child, 60_000);
  log(`dashboard: ${url} (application: ${app.name})`);
  log(`worker metrics: http://127.0.0.1:${config.METRICS_PORT}/metrics`);
  if (admin.created) {
    log(`first start: sign in as "${admin.username}" with password ${admin.password}`);
    log(`(stored in ${admin.file}, mode 0600; shown only this once)`);
  } else {
    log(`sign in with your dashboard user; the first admin's password is in ${path.join(config.dataDir, 'admin-password')}`);
  }
  if (demo) {
    children.push({
      name: 'demo',
      stopAfterMs: 5_000,
      child: spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--follow'], { cwd: root, env, stdio: 'inherit' }),
    });
  }
  log('press Ctrl-C to stop');
}

/** Resolves when `url` answers at all, or after `timeoutMs` (then the URL is printed anyway); stops early if `child` exits. */
async function waitUntilAnswering(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null && !shuttingDown) {
    const answered = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
main().catch(async (err) => {
  console.error(`bullpen: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});
