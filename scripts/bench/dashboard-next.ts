/**
 * The real dashboard for the HTTP half of the benchmark: a production build (`next
 * build` when there is none or the sources are newer), `next start` on loopback
 * against the benchmark's Redis and key prefix, and a signed-in viewer's session
 * cookie — sealed exactly as the sign-in action seals it, for a user whose password
 * was checked by the same SignInService.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sealData } from 'iron-session';
import type { Bullpen } from '@/lib/bullpen';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type SessionData } from '@/dashboard/auth/session-options';
import { SignInService } from '@/dashboard/auth/sign-in';
import { isAppError } from '@/lib/errors/app-error';
import { freePort } from '@/lib/redis/embedded-server';
import { buildDashboardIfNeeded } from '../dashboard-build';

const root = path.resolve(__dirname, '../..');
const BUILD_ID = path.join(root, '.next', 'BUILD_ID');

export interface BuildOutcome {
  /** Seconds the build took, when this run built. */
  builtInS?: number;
  /** Why there is no usable build (the HTTP half is then skipped). */
  unusable?: string;
  /** The build is older than the sources (BENCH_NO_BUILD=1 kept it). */
  stale?: boolean;
}

/**
 * Makes sure `.next` holds a production build no older than the sources. Waits for a
 * build someone else started rather than racing it. BENCH_NO_BUILD=1 uses what is
 * there, stale or not.
 */
export async function ensureBuild(): Promise<BuildOutcome> {
  if (process.env.BENCH_NO_BUILD === '1' && !existsSync(BUILD_ID)) {
    return { unusable: 'no production build (.next/BUILD_ID) and BENCH_NO_BUILD=1' };
  }
  try {
    const r = await buildDashboardIfNeeded(root, {
      log: (line) => console.log(`  ${line}`),
      reuseStale: process.env.BENCH_NO_BUILD === '1',
      quiet: true,
    });
    if (r.outcome === 'stale') return { stale: true };
    return r.seconds === undefined ? {} : { builtInS: r.seconds };
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    return { unusable: '`next build` failed or another build held the tree (see the bench log)' };
  }
}

export interface RunningDashboard {
  url: string;
  /** The server process (scripts/web-server.ts), for reading its CPU time. */
  pid: number | undefined;
  /** `bullpen_session=…` for a signed-in viewer. */
  cookie: string;
  /** The server's output so far (for an error message). */
  log(): string;
  stop(): Promise<void>;
}

/** Signs a viewer in through SignInService and seals the cookie the sign-in action would set. */
async function viewerCookie(bullpen: Bullpen, secret: string): Promise<string> {
  const auth = new SignInService(bullpen.redis, bullpen.keys);
  const username = 'bench-viewer';
  const password = randomBytes(18).toString('base64url');
  try {
    await auth.users.create({ username, role: 'viewer', password });
  } catch (err) {
    if (!isAppError(err) || err.code !== 'CONFLICT') throw err;
    await auth.users.setPassword(username, password);
  }
  const user = await auth.signIn(username, password, '127.0.0.1');
  const sid = await auth.sessions.open(user.username);
  const data: SessionData = { sid, username: user.username, role: user.role, sessionEpoch: user.sessionEpoch, signedInAt: Date.now() };
  const sealed = await sealData(data, { password: secret, ttl: SESSION_TTL_SECONDS });
  return `${SESSION_COOKIE}=${sealed}`;
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) return resolve();
    const pid = child.pid;
    const kill = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    // The server was started detached: its pid leads a process group of its own.
    process.kill(-pid, 'SIGTERM');
  });
}

/**
 * `next start` on a free loopback port, configured like a deployment pointed at the
 * benchmark's Redis: REDIS_URL, the benchmark's key prefix, a throwaway data
 * directory and a session secret of this run. Resolves once it answers HTTP.
 */
export async function startDashboard(bullpen: Bullpen, redisUrl: string): Promise<RunningDashboard> {
  const port = await freePort();
  const secret = randomBytes(32).toString('base64url');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bullpen-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    REDIS_URL: redisUrl,
    REDIS_CLUSTER_NODES: '',
    BULLPEN_PREFIX: bullpen.keys.root,
    BULLPEN_DATA_DIR: dataDir,
    SESSION_SECRET: secret,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'web-server.ts')], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => (log += String(d)));
  child.stderr?.on('data', (d) => (log += String(d)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopGroup(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}): ${log.trim().slice(-2_000)}`);
      const up = await fetch(`${url}/api/health`).then(
        (r) => r.status > 0,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`next start did not answer within 60 s: ${log.trim().slice(-2_000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return { url, pid: child.pid, cookie: await viewerCookie(bullpen, secret), log: () => log, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
