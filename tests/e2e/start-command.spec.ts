import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort } from '@/lib/redis/embedded-server';
import { SignInPage } from './pages/sign-in-page';
import { saveScreenshot } from './fixtures';

const root = path.resolve(__dirname, '../..');

/**
 * The README's first command, as a newcomer runs it, with nothing configured but
 * ports and a data directory of its own (so it cannot meet the suite's stack): it
 * starts its own redis-server with AOF under the data directory, the worker and the
 * dashboard, prints the URL and the first admin's password, and Ctrl-C stops all of it.
 */
test('npm start brings up Redis, the worker and the dashboard with no configuration, and Ctrl-C stops them', async ({ page }) => {
  // A cold start may run npm install and a build check before anything listens.
  test.setTimeout(300_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-start-'));
  const [port, redisPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    BULLPEN_REDIS_PORT: String(redisPort),
    METRICS_PORT: String(metricsPort),
    BULLPEN_DATA_DIR: dataDir,
  };
  for (const k of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'BULLPEN_PREFIX', 'WEBHOOK_ALLOW_HOSTS', 'EMBEDDINGS_URL']) delete env[k];
  // `npm start` is `bash scripts/up.sh`, which checks Node and redis-server, then runs scripts/start.ts.
  const child = spawn('bash', ['scripts/up.sh'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await expect
      .poll(() => out, { timeout: 180_000, message: 'the start command never printed its URL' })
      .toContain('press Ctrl-C to stop');
    expect(out).toContain(`dashboard: http://127.0.0.1:${port}`);
    const password = /sign in as "admin" with password (\S+)/.exec(out)?.[1];
    expect(password).toBeTruthy();
    expect(readFileSync(path.join(dataDir, 'admin-password'), 'utf8').trim()).toBe(password);
    expect(statSync(path.join(dataDir, 'admin-password')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'redis')).isDirectory()).toBe(true);

    // The worker is up: its metrics endpoint answers, and health sees it on every queue.
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined))?.status, { timeout: 60_000 })
      .toBe(200);
    await expect
      .poll(
        async () =>
          (
            await fetch(`http://127.0.0.1:${port}/api/health`).then(
              (r) => r.json(),
              () => undefined,
            )
          )?.checks?.workers,
        { timeout: 60_000 },
      )
      .toBe('healthy');

    const signIn = new SignInPage(page);
    await page.goto(`http://127.0.0.1:${port}/`);
    await signIn.submitCredentials('admin', password!);
    await expect(page).toHaveURL(`http://127.0.0.1:${port}/`);
    await saveScreenshot(page, 'start-command-overview');
  } finally {
    // Ctrl-C in a terminal reaches the whole foreground process group.
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
  }
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  if (code === 'hung' && child.pid) process.kill(-child.pid, 'SIGKILL');
  expect(code, `the start command's output:\n${out}`).toBe(0);
  // Nothing it started is left listening.
  await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  const redisRefused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(redisPort, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
  expect(redisRefused).toBe(true);
  rmSync(dataDir, { recursive: true, force: true });
});
