import { useTestRedis } from '../helpers/use-test-redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readyClient } from '@/lib/redis/connection';
import { testBullpen } from '../helpers/test-bullpen';
import { type SpawnedWorker, spawnFixture } from '../helpers/spawn-worker';

describe('SIGTERM while 20 jobs run', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;

  beforeAll(async () => {
    bullpen = testBullpen(server.redis);
  });
  afterAll(async () => {
    await bullpen.close();
  });

  it('finishes all 20, starts no new job, and exits 0', async () => {
    const prefix = bullpen.keys.root;
    await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: 40 }, (_, n) => ({
        type: 'notify' as const,
        data: { webhookId: 'wh', event: 'test', payload: { n } },
      })),
    );
    const worker = spawnFixture('runtime-worker.ts', {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: prefix,
      JOB_MS: '1500',
      CONCURRENCY: '20',
      SHUTDOWN_GRACE_MS: '20000',
    });
    await worker.ready;
    const deadline = Date.now() + 20_000;
    while ((await bullpen.redis.llen(`${prefix}:started`)) < 20) {
      if (Date.now() > deadline) throw new Error(`20 jobs never ran at once:\n${worker.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    worker.child.kill('SIGTERM');

    expect(await worker.exited).toBe(0);
    expect(await bullpen.redis.llen(`${prefix}:started`)).toBe(20);
    expect(await bullpen.redis.scard(`${prefix}:done`)).toBe(20);
    const counts = await bullpen.queues.get('notify').getJobCounts('active', 'completed', 'failed');
    expect(counts).toEqual({ active: 0, completed: 20, failed: 0 });
    const waiting = await bullpen.queues.get('notify').getJobCountByTypes('waiting', 'prioritized');
    expect(waiting).toBe(20);
  }, 60_000);
});

describe('a stop that cannot wait for every job', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  /** Workers a test started; one a failed assertion left running is killed. */
  const spawned: SpawnedWorker[] = [];
  afterEach(() => {
    for (const w of spawned.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  });

  beforeAll(async () => {
    bullpen = testBullpen(server.redis);
    await readyClient(bullpen.redis);
  });
  afterAll(async () => {
    await bullpen.close();
  });

  /** Dispatches `n` notify jobs and starts a worker whose handler takes a minute; resolves once all `n` run. */
  async function workerRunning(n: number, env: Record<string, string>): Promise<{ worker: SpawnedWorker; jobIds: string[] }> {
    const prefix = bullpen.keys.root;
    await bullpen.redis.del(`${prefix}:started`, `${prefix}:done`);
    const dispatched = await bullpen.dispatcher.dispatchBulk(
      Array.from({ length: n }, (_, i) => ({
        type: 'notify' as const,
        data: { webhookId: 'wh', event: 'slow', payload: { i } },
      })),
    );
    const worker = spawnFixture('runtime-worker.ts', {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: prefix,
      JOB_MS: '60000',
      CONCURRENCY: String(n),
      ...env,
    });
    spawned.push(worker);
    await worker.ready;
    await waitFor(
      async () => (await bullpen.redis.llen(`${prefix}:started`)) >= n,
      20_000,
      () => worker.output(),
    );
    return { worker, jobIds: dispatched.map((d) => d.jobId) };
  }

  it('the grace period runs out: the worker logs the abandoned jobs (ids and types) and exits 3', async () => {
    const { worker, jobIds } = await workerRunning(2, { SHUTDOWN_GRACE_MS: '1500' });
    const signalled = performance.now();
    worker.child.kill('SIGTERM');

    // Soon after the 1.5 s grace period: not after the jobs' minute, nor their 30 s time limit.
    expect(await exitedWithin(worker, 15_000), worker.output()).toBe(3);
    // And not before it: the worker waited the grace period out. The timer starts once the
    // signal has arrived, after `signalled`, and a Node timer never fires early.
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(1_500);
    const lines = logLines(worker.output());
    const over = lines.find((l) => String(l.msg).startsWith('grace period over'));
    expect(over, worker.output()).toBeDefined();
    const abandoned = (over!.abandoned as Array<{ id: string; type: string }>).map((j) => `${j.type}:${j.id}`).sort();
    expect(abandoned).toEqual(jobIds.map((id) => `notify:${id}`).sort());
    expect(lines.find((l) => l.exitCode === 3)?.abandoned).toEqual(over!.abandoned);
    // Neither job finished; they stay active for the stalled check of another worker.
    expect(await bullpen.redis.scard(`${bullpen.keys.root}:done`)).toBe(0);
    const counts = await bullpen.queues.get('notify').getJobCounts('active', 'completed');
    expect(counts).toEqual({ active: 2, completed: 0 });
    await bullpen.queues.get('notify').obliterate({ force: true });
  }, 60_000);

  it('a second signal during the graceful wait exits 1 at once', async () => {
    const { worker } = await workerRunning(1, { SHUTDOWN_GRACE_MS: '60000', LOG_LEVEL: 'info' });
    worker.child.kill('SIGTERM');
    await waitFor(
      async () => worker.output().includes('shutting down'),
      10_000,
      () => worker.output(),
    );
    worker.child.kill('SIGINT');

    // The job has most of a minute to go, and so has the grace period.
    expect(await exitedWithin(worker, 15_000), worker.output()).toBe(1);
    expect(logLines(worker.output()).some((l) => l.msg === 'second signal: exiting now' && l.signal === 'SIGINT')).toBe(true);
    expect(await bullpen.redis.scard(`${bullpen.keys.root}:done`)).toBe(0);
    await bullpen.queues.get('notify').obliterate({ force: true });
  }, 60_000);
});

/** The exit code, or 'hung' (and the process killed) if it is still running after `ms`. */
async function exitedWithin(worker: SpawnedWorker, ms: number): Promise<number | null | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([worker.exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), ms)))]);
  clearTimeout(timer);
  if (code === 'hung') worker.child.kill('SIGKILL');
  return code;
}

/** The worker's JSON log lines. */
function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
