import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Redis } from 'ioredis';
import { shippedApp } from '@/jobs/shipped-app';
import type { EmbeddingBatchResult } from '@/jobs/embedding/embedding-batch';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { embeddedRedisPassword } from '@/lib/redis/embedded-password';
import { freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';
import { SignInPage } from './pages/sign-in-page';
import { saveScreenshot } from './fixtures';
import { startSlowEmbeddingsServer } from './support/slow-embeddings-server';

const root = path.resolve(__dirname, '../..');

/**
 * The README's first command, as a newcomer runs it, with nothing configured but
 * ports and a data directory of its own (so it cannot meet the suite's stack): it
 * starts its own redis-server with AOF under the data directory, the worker and the
 * dashboard, prints the URL and the first admin's password, and Ctrl-C stops all of it,
 * letting a running job finish first. Its one setting beyond those: EMBEDDINGS_URL, a
 * loopback embeddings service taking EMBED_MS per call, so a job runs while Ctrl-C comes.
 */
const EMBED_MS = 2_500;
const ITEMS = 4;

test('npm start brings up Redis, the worker and the dashboard with no configuration, and Ctrl-C stops them once the running job finished', async ({
  page,
}) => {
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
  const embeddings = await startSlowEmbeddingsServer(EMBED_MS);
  env.EMBEDDINGS_URL = embeddings.url;
  // The worker's "worker stopped" line is at info.
  env.LOG_LEVEL = 'info';
  // `npm start` is `bash scripts/up.sh`, which checks Node and redis-server, then runs scripts/start.ts.
  const child = spawn('bash', ['scripts/up.sh'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  let exitedAt = 0;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitedAt = Date.now();
      resolve(code);
    }),
  );
  let interrupted = false;
  let jobId = '';
  let sigintAt = 0;
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

    // A job that takes about ITEMS × EMBED_MS, on the start command's own Redis (its default prefix).
    const bullpen = startCommandBullpen(dataDir, redisPort);
    try {
      await readyClient(bullpen.redis);
      const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `doc-${i}`, text: `document ${i} running at Ctrl-C` }));
      ({ jobId } = await bullpen.dispatcher.dispatch('embedding-batch', { namespace: 'start-command', items, batchSize: 1 }));
      const queue = bullpen.queues.get('embedding-batch');
      // Mid-run: the worker has the job and is waiting on its first batch.
      await expect
        .poll(async () => (await queue.getJobState(jobId)) === 'active' && embeddings.requests() >= 1, { timeout: 60_000 })
        .toBe(true);
    } finally {
      await bullpen.close();
    }
    // Ctrl-C in a terminal reaches the whole foreground process group.
    sigintAt = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    interrupted = true;
  } finally {
    if (!interrupted && child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
  }
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  // Only now: the job running at Ctrl-C still calls it.
  await embeddings.close();
  if (code === 'hung' && child.pid) {
    process.kill(-child.pid, 'SIGKILL');
    // The redis-server runs in a process group of its own (so Ctrl-C does not stop it under the worker).
    const left = new Redis({ port: redisPort, password: embeddedRedisPassword(dataDir), lazyConnect: true });
    await left.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    left.disconnect();
  }
  expect(code, `the start command's output:\n${out}`).toBe(0);
  // The worker stopped cleanly, before Redis: nothing abandoned.
  const stopped = out.split('\n').find((l) => l.includes('"msg":"worker stopped"'));
  expect(stopped, out).toContain('"abandoned":0');
  expect(out.indexOf('"msg":"worker stopped"')).toBeLessThan(out.indexOf('stopping redis-server'));
  expect(embeddings.requests()).toBe(ITEMS);
  // Nothing it started is left listening.
  await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  const redisRefused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(redisPort, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
  expect(redisRefused).toBe(true);

  // What the stopped Redis kept (its AOF under the data directory): the job that was
  // running at Ctrl-C completed, whole, before the processes exited.
  const reopened = await startEmbeddedRedis({
    port: redisPort,
    dir: path.join(dataDir, 'redis'),
    password: embeddedRedisPassword(dataDir),
  });
  const bullpen = startCommandBullpen(dataDir, redisPort);
  try {
    await readyClient(bullpen.redis);
    const queue = bullpen.queues.get('embedding-batch');
    expect(await queue.getJobState(jobId)).toBe('completed');
    const job = await queue.getJob(jobId);
    expect(job?.processedOn).toBeLessThan(sigintAt);
    expect(job?.finishedOn).toBeGreaterThan(sigintAt);
    expect(job?.finishedOn).toBeLessThanOrEqual(exitedAt);
    expect(job?.returnvalue as EmbeddingBatchResult).toMatchObject({ items: ITEMS, embedded: ITEMS, failedBatches: [] });
  } finally {
    await bullpen.close();
    await reopened.stop();
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** A Bullpen on the start command's embedded Redis, with the prefix it uses when none is configured. */
function startCommandBullpen(dataDir: string, redisPort: number): Bullpen {
  const password = encodeURIComponent(embeddedRedisPassword(dataDir)!);
  return createBullpen({
    ...shippedApp,
    config: loadConfig({ REDIS_URL: `redis://:${password}@127.0.0.1:${redisPort}`, BULLPEN_DATA_DIR: dataDir }),
    logger: silentLogger,
  });
}
