import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { Config } from '@/lib/config';
import { loadConfig } from '@/lib/config';
import { readyClient } from '@/lib/redis/connection';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { uniquePrefix } from './redis';
import { spawnFixture, type SpawnedWorker } from './spawn-worker';

/** What one application's drill runs: its worker, the type it delivers, and its own view. */
export interface RedisRestartDrill {
  /** The describe block's title, and the start of the line the drill logs. */
  title: string;
  logName: string;
  /** The job type whose runs POST to the sink (with an `x-delivery-id` header). */
  type: string;
  /** The worker process (tests/fixtures/...), started with the drill's environment. */
  fixture: string;
  /** Settings of that application, beside Redis, the prefix and the intervals. */
  env: Record<string, string>;
  /** The test's own view of the application, riding out the restart too (connectionRole 'resilient'). */
  bullpen(config: Config): Bullpen;
  /** Called once the view is ready and before the jobs are dispatched (a webhook to create). */
  setUp?(bullpen: Bullpen, sinkUrl: string): Promise<void>;
  /** The data of job `n`. */
  data(n: number): unknown;
}

const JOBS = 1_500;
/** The sink answers after this long, so the load lasts a few seconds and the kill lands mid-way. */
const SINK_DELAY_MS = 25;

/**
 * The fault drill of docs/observability.md ("Redis restarts"): a real worker process
 * delivering to a loopback sink while its redis-server (AOF, appendfsync everysec) is
 * killed with SIGKILL and restarted 3 s later on the same files. Every job completes,
 * none is dead-lettered, and a job is delivered twice only inside the AOF window.
 */
export function describeRedisRestartDrill(drill: RedisRestartDrill): void {
  describe(drill.title, () => {
    let dataDir: string;
    let port: number;
    let redis: EmbeddedRedis;
    let sink: http.Server;
    let sinkUrl: string;
    /** Arrival time of every delivery, by delivery id. */
    const deliveries = new Map<string, number[]>();

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-drill-'));
      port = await freePort();
      redis = await startEmbeddedRedis({ port, dir: path.join(dataDir, 'redis') });
      sink = http.createServer((req, res) => {
        const id = String(req.headers['x-delivery-id']);
        deliveries.set(id, [...(deliveries.get(id) ?? []), Date.now()]);
        req.resume();
        setTimeout(() => res.end('ok'), SINK_DELAY_MS);
      });
      await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
      sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
    });
    afterAll(async () => {
      await redis?.stop();
      await new Promise<void>((r) => sink.close(() => r()));
      await rm(dataDir, { recursive: true, force: true });
    });

    it('every job completes, none is dead-lettered, and duplicates stay inside the AOF window', async () => {
      const env = {
        REDIS_URL: redis.url,
        BULLPEN_PREFIX: uniquePrefix('drill'),
        BULLPEN_DATA_DIR: dataDir,
        WORKER_TYPES: drill.type,
        SINK_URL: sinkUrl,
        STALLED_INTERVAL_MS: '1000',
        LOCK_DURATION_MS: '2000',
        RECONCILE_INTERVAL_MS: '1000',
        ...drill.env,
      };
      const bullpen = drill.bullpen(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
      let worker: SpawnedWorker | undefined;
      try {
        await readyClient(bullpen.redis);
        await drill.setUp?.(bullpen, sinkUrl);
        for (let i = 0; i < JOBS; i += 500) {
          await bullpen.dispatcher.dispatchBulk(Array.from({ length: 500 }, (_, j) => ({ type: drill.type, data: drill.data(i + j) })));
        }
        // Past the everysec window: the dispatched jobs themselves are on disk.
        await new Promise((r) => setTimeout(r, 1_500));

        worker = spawnFixture(drill.fixture, env);
        await worker.ready;
        await waitFor(() => deliveries.size >= JOBS / 4, 60_000);
        const killedAt = Date.now();
        redis.child!.kill('SIGKILL');
        await new Promise((r) => setTimeout(r, 3_000));
        const restartedAt = Date.now();
        redis = await startEmbeddedRedis({ port, dir: path.join(dataDir, 'redis') });

        const queue = bullpen.queues.get(drill.type);
        let last: Record<string, number> = {};
        await waitFor(
          async () => {
            last = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
            return deliveries.size >= JOBS && last.waiting + last.prioritized + last.active + last.delayed === 0;
          },
          90_000,
          // What a reader needs when it does not settle: where the jobs are, and what the worker said.
          () =>
            `${deliveries.size}/${JOBS} delivered, counts ${JSON.stringify(last)}, worker ${
              worker?.child.exitCode === null ? 'running' : `exited ${worker?.child.exitCode}`
            }; worker output tail:\n${worker?.output().slice(-3_000)}`,
        );

        const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
        expect(counts).toEqual({ waiting: 0, prioritized: 0, active: 0, delayed: 0, failed: 0 });
        expect(deliveries.size).toBe(JOBS);
        expect(await bullpen.dlq.pendingCount()).toBe(0);

        // A repeat can only come from work acknowledged in the last second before the kill
        // (AOF everysec), plus the deliveries in flight: the documented window. So, per job:
        // delivered once, or twice when its first delivery fell in that window and its second
        // after the restart; never three times. "In flight" includes a run the worker took
        // before the kill whose delivery went out during the outage (or, with a delivery lock
        // in Redis, waited on it through the outage and went out in the first burst back),
        // while the job, its completion not written, runs again once Redis is back. That
        // burst is bounded: the first second after the first delivery past the restart.
        const total = [...deliveries.values()].reduce((n, at) => n + at.length, 0);
        const duplicates = total - JOBS;
        const windowStart = killedAt - 1_500 - 1_000;
        const firstBack = Math.min(...[...deliveries.values()].flat().filter((t) => t >= restartedAt));
        const windowEnd = firstBack + 1_000;
        const inWindow = [...deliveries.values()].filter((at) => at[0] >= windowStart && at[0] < windowEnd).length;
        console.log(
          `${drill.logName}: ${JOBS} jobs, ${duplicates} duplicate deliveries, ${inWindow} first deliveries from 2.5 s before the kill to 1 s after the first delivery back (${firstBack - killedAt} ms after the kill)`,
        );
        const outside: Array<{ id: string; at: number[] }> = [];
        for (const [id, at] of deliveries) {
          if (at.length === 1) continue;
          const repeatable = at.length === 2 && at[0] >= windowStart && at[0] < windowEnd && at[1] >= restartedAt;
          if (!repeatable) outside.push({ id, at: at.map((t) => t - killedAt) });
        }
        expect(outside, 'deliveries (ms from the kill) of jobs repeated outside the window, or more than once').toEqual([]);
        expect(duplicates).toBeLessThanOrEqual(inWindow);
      } finally {
        worker?.child.kill('SIGTERM');
        if (worker) await worker.exited;
        await bullpen.close();
      }
    }, 180_000);
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, explain?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${explain ? `: ${explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
