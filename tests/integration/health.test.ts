import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { HttpError } from '@/lib/errors/http-error';
import { HealthChecker, type HealthCheckerOptions } from '@/lib/health/health-checker';
import type { CheckResult, HealthReport } from '@/lib/health/health-status';
import { PRIORITY } from '@/lib/jobs/priority';
import { silentLogger } from '@/lib/logging/logger';
import { freePort, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import type { HandlerMap, JobHandler } from '@/lib/runtime/handler';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';
import { startTestRedis } from '../helpers/redis';

const TYPES: string[] = ['notify', 'sync'];
const MIN = 60_000;
const noop: JobHandler = async () => ({ ok: true });

const sink: DeadLetterSink = {
  async record(input: DeadLetterInput) {
    return { id: `${input.queue}/${input.jobId}`, created: true };
  },
};

const check = (report: HealthReport, name: CheckResult['name']) => {
  const c = report.checks.find((x) => x.name === name);
  if (!c) throw new Error(`no ${name} check in ${JSON.stringify(report)}`);
  return c;
};

async function commandCalls(bullpen: Bullpen, command: string): Promise<number> {
  const info = await bullpen.redis.info('commandstats');
  const m = new RegExp(`cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`).exec(info);
  return m ? Number(m[1]) : 0;
}

describe('HealthChecker against a real redis-server', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  const pools: WorkerPool[] = [];

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close(5_000)));
    await bullpen?.close();
  });

  function setup(env: Record<string, string> = {}) {
    bullpen = testBullpen(server.redis, { handledTypes: TYPES, env });
    return bullpen;
  }

  async function startPool(types: string[], handlers: HandlerMap = Object.fromEntries(types.map((t) => [t, noop]))) {
    const pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers,
      types,
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
    });
    pools.push(pool);
    await pool.start();
    return pool;
  }

  function checker(overrides: Partial<HealthCheckerOptions> = {}) {
    return new HealthChecker({ redis: bullpen.redis, queues: bullpen.queues, types: TYPES, cacheTtlMs: 0, ...overrides });
  }

  it('is healthy with a WorkerPool connected on every handled queue', async () => {
    setup();
    await startPool(TYPES);
    // A PING over 100 ms (a loaded CI machine) reads as degraded; that is the rule
    // working, not this wiring failing, so give a slow moment a few more chances.
    let report = await bullpen.health.check();
    for (let i = 0; i < 5 && check(report, 'redis').status === 'degraded'; i++) {
      await new Promise((r) => setTimeout(r, 2_100)); // past bullpen.health's cache
      report = await bullpen.health.check();
    }

    expect(report.status).toBe('healthy');
    expect(report.checks.map((c) => c.name)).toEqual(['redis', 'workers', 'queues', 'deadLetters']);
    expect(check(report, 'redis').status).toBe('healthy');
    expect(check(report, 'workers').details).toEqual({
      minWorkers: 1,
      workers: { notify: 1, sync: 1 },
      total: 2,
      belowMinimum: [],
    });
    expect(check(report, 'queues').details).toMatchObject({ oldestWaitingMs: null });
    // bullpen.health reads the real DLQ store's pending count.
    expect(check(report, 'deadLetters')).toMatchObject({ status: 'healthy', details: { pending: 0, threshold: 100 } });
    for (const c of report.checks) {
      expect(c.latencyMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(c.checkedAt))).toBe(false);
    }
    expect(await bullpen.health.publicSummary()).toEqual({
      status: 'healthy',
      checks: { redis: 'healthy', workers: 'healthy', queues: 'healthy', deadLetters: 'healthy' },
      checkedAt: report.checkedAt,
    });
  });

  it('is unhealthy when no worker serves any handled queue', async () => {
    setup();
    const report = await bullpen.health.check();
    expect(check(report, 'workers')).toMatchObject({
      status: 'unhealthy',
      details: { workers: { notify: 0, sync: 0 }, total: 0, belowMinimum: ['notify', 'sync'] },
    });
    expect(report.status).toBe('unhealthy');
  });

  it('is degraded when some queues lack workers, or have fewer than HEALTH_MIN_WORKERS', async () => {
    setup({ HEALTH_MIN_WORKERS: '2' });
    await startPool(['notify']);
    expect(check(await checker().check(), 'workers')).toMatchObject({ status: 'degraded', details: { belowMinimum: ['sync'] } });

    // Every queue has one worker, but the configured minimum is two.
    await startPool(['sync']);
    const min2 = await bullpen.health.check();
    expect(check(min2, 'workers')).toMatchObject({
      status: 'degraded',
      details: { minWorkers: 2, workers: { notify: 1, sync: 1 }, belowMinimum: ['notify', 'sync'] },
    });
    expect(min2.status).toBe('degraded');

    // A second worker process (another connection name) on both queues meets it.
    const second = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: { notify: noop, sync: noop },
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
      name: 'bullpen:other-host:1',
    });
    pools.push(second);
    await second.start();
    expect(check(await checker({ minWorkers: 2 }).check(), 'workers')).toMatchObject({ status: 'healthy', details: { total: 4 } });
  });

  it('is degraded, not failing, when CLIENT LIST is forbidden (managed Redis)', async () => {
    setup();
    await startPool(TYPES);
    // A user allowed everything but CLIENT LIST, as some managed services configure it.
    const user = `limited-${bullpen.keys.root}`;
    await bullpen.redis.call('ACL', 'SETUSER', user, 'on', '>limited-pass', '~*', '&*', '+@all', '-client|list');
    const limited = testBullpen(server.redis, {
      handledTypes: TYPES,
      redis: { url: `redis://${user}:limited-pass@127.0.0.1:${server.redis.port}` },
    });
    try {
      const report = await new HealthChecker({ redis: limited.redis, queues: limited.queues, types: TYPES, cacheTtlMs: 0 }).check();
      expect(check(report, 'workers')).toMatchObject({
        status: 'degraded',
        details: { reason: 'client-list-unavailable', minWorkers: 1, queues: 2 },
      });
      expect(check(report, 'redis').status).toBe('healthy');
      expect(report.status).toBe('degraded');
    } finally {
      await limited.close();
      await bullpen.redis.call('ACL', 'DELUSER', user);
    }
  });

  it('reports the oldest waiting job per queue, in the wait list and in every priority band', async () => {
    setup();
    const now = Date.now();
    const webhooks = bullpen.queues.get('notify');
    const slack = bullpen.queues.get('sync');
    const thresholds = { waitingDegradedMs: 5 * MIN, waitingUnhealthyMs: 30 * MIN };

    // A plain (unprioritised) job 10 minutes old: the wait list's tail.
    await webhooks.add('old', { n: 1 }, { priority: 0, timestamp: now - 10 * MIN });
    await webhooks.add('new', { n: 2 }, { priority: 0 });
    let report = await checker(thresholds).check();
    let queues = check(report, 'queues');
    expect(queues.status).toBe('degraded');
    expect(queues.details.queues).toMatchObject({
      notify: { waiting: 2, paused: false },
      sync: { waiting: 0, oldestWaitingMs: null },
    });
    const age = (queues.details.queues as Record<string, { oldestWaitingMs: number }>).notify.oldestWaitingMs;
    expect(age).toBeGreaterThanOrEqual(10 * MIN);
    expect(age).toBeLessThan(11 * MIN);

    // A LOW job 40 minutes old sits behind a fresh CRITICAL one: the set's head is fresh,
    // but the LOW band's head is what has starved.
    await slack.add('starved', { n: 3 }, { priority: PRIORITY.LOW, timestamp: now - 40 * MIN });
    await slack.add('urgent', { n: 4 }, { priority: PRIORITY.CRITICAL });
    report = await checker(thresholds).check();
    queues = check(report, 'queues');
    expect(queues.status).toBe('unhealthy');
    expect(queues.details.oldestWaitingMs).toBeGreaterThanOrEqual(40 * MIN);
    expect(report.status).toBe('unhealthy');

    // A paused queue's jobs wait on purpose: reported, not judged.
    await slack.pause();
    queues = check(await checker(thresholds).check(), 'queues');
    expect(queues.status).toBe('degraded');
    expect((queues.details.queues as Record<string, { paused: boolean; waiting: number }>).sync).toMatchObject({
      paused: true,
      waiting: 2,
    });
  });

  it('times a delayed job from when it became due, and uses the injected clock', async () => {
    setup();
    const queue = bullpen.queues.get('notify');
    const job = await queue.add('later', { n: 1 }, { delay: 60 * MIN });
    expect(check(await checker().check(), 'queues').details).toMatchObject({ oldestWaitingMs: null });
    await job.promote(); // now in the prioritized set, due 60 min after creation
    const at = (offset: number) =>
      checker({ now: () => Date.now() + offset, waitingDegradedMs: 1_000, waitingUnhealthyMs: 2 * MIN }).check();
    expect(check(await at(0), 'queues')).toMatchObject({ status: 'healthy', details: { oldestWaitingMs: 0 } });
    const late = check(await at(61 * MIN + 30_000), 'queues');
    expect(late.status).toBe('degraded');
    expect(late.details.oldestWaitingMs as number).toBeGreaterThanOrEqual(90_000 - 1_000);
    expect(check(await at(63 * MIN), 'queues').status).toBe('unhealthy');
  });

  it('steps over a retried job (its backoff is not waiting) but not over a fresh one behind it', async () => {
    setup();
    let failures = 0;
    const failing: JobHandler = async () => {
      failures++;
      throw new HttpError(503, 'upstream unavailable');
    };
    const pool = await startPool(['notify'], { notify: failing });
    const { jobId } = await bullpen.dispatcher.dispatch('notify', { webhookId: 'w1', event: 'e', payload: {} });
    const queue = bullpen.queues.get('notify');
    const deadline = Date.now() + 10_000;
    while (failures === 0) {
      if (Date.now() > deadline) throw new Error('the job never ran');
      await new Promise((r) => setTimeout(r, 20));
    }
    await pool.close(5_000);
    const job = await queue.getJob(jobId);
    if ((await job!.getState()) === 'delayed') await job!.promote();
    expect(['waiting', 'prioritized']).toContain(await job!.getState());

    // An hour later by the checker's clock: the retried job alone is not measurable...
    const later = () => checker({ now: () => Date.now() + 60 * MIN }).check();
    expect(check(await later(), 'queues')).toMatchObject({ status: 'healthy', details: { oldestWaitingMs: null } });
    // ...but a fresh job queued behind it in the same band still shows the backlog.
    await bullpen.dispatcher.dispatch('notify', { webhookId: 'w1', event: 'e2', payload: {} });
    const queues = check(await later(), 'queues');
    expect(queues.status).toBe('unhealthy');
    expect(queues.details.oldestWaitingMs as number).toBeGreaterThanOrEqual(59 * MIN);
    expect((queues.details.queues as Record<string, { waiting: number }>).notify.waiting).toBe(2);
  });

  it('rates pending dead letters against the threshold', async () => {
    setup();
    await startPool(TYPES);
    let pending = 0;
    const health = checker({ deadLetters: async () => pending, deadLetterThreshold: 5 });
    const dlq = async () => check(await health.check(), 'deadLetters');

    expect(await dlq()).toMatchObject({ status: 'healthy', details: { pending: 0, threshold: 5 } });
    pending = 4;
    expect(await dlq()).toMatchObject({ status: 'degraded', details: { pending: 4, threshold: 5 } });
    pending = 5;
    expect(await dlq()).toMatchObject({ status: 'unhealthy', details: { pending: 5 } });
    expect((await health.check()).status).toBe('unhealthy');

    // Through bullpen.health: real entries in the DLQ store against DLQ_ALERT_THRESHOLD.
    const viaStore = await bullpen.health.check();
    expect(check(viaStore, 'deadLetters')).toMatchObject({ status: 'healthy', details: { pending: 0 } });
    await bullpen.close();
    setup({ DLQ_ALERT_THRESHOLD: '2' });
    await startPool(TYPES);
    const record = (jobId: string) =>
      bullpen.dlq.record({
        queue: 'notify',
        jobId,
        jobType: 'notify',
        jobData: { n: jobId },
        error: { message: 'gone', errorClass: 'client' },
        attempts: 1,
        failedAt: Date.now(),
        source: 'runtime',
      });
    await record('1');
    const afterOne = await checker({ deadLetters: () => bullpen.dlq.pendingCount(), deadLetterThreshold: 2 }).check();
    expect(check(afterOne, 'deadLetters')).toMatchObject({ status: 'degraded', details: { pending: 1 } });
    await record('2');
    const afterTwo = await bullpen.health.check();
    expect(check(afterTwo, 'deadLetters')).toMatchObject({ status: 'unhealthy', details: { pending: 2, threshold: 2 } });
    expect(afterTwo.status).toBe('unhealthy');

    const broken = checker({
      deadLetters: async () => {
        throw new Error('secret internal failure text');
      },
    });
    const report = await broken.check();
    expect(check(report, 'deadLetters')).toMatchObject({ status: 'unhealthy', details: { reason: 'error' } });
    expect(JSON.stringify(report)).not.toContain('secret internal failure text');
  });

  it('shares one evaluation among concurrent callers and within the cache TTL', async () => {
    setup();
    await startPool(TYPES);
    const health = checker({ cacheTtlMs: 60_000 });
    await bullpen.redis.config('RESETSTAT');
    const reports = await Promise.all(Array.from({ length: 25 }, () => health.check()));
    expect(new Set(reports).size).toBe(1);
    await health.publicSummary();
    await health.check();
    // One PING and one CLIENT LIST (for every handled queue at once) for all 27 callers
    // (the RESETSTAT and INFO themselves are the only other commands).
    expect(TYPES.length).toBeGreaterThan(1);
    expect(await commandCalls(bullpen, 'ping')).toBe(1);
    expect(await commandCalls(bullpen, 'client|list')).toBe(1);

    const short = checker({ cacheTtlMs: 50 });
    await bullpen.redis.config('RESETSTAT');
    await short.check();
    await new Promise((r) => setTimeout(r, 80));
    await short.check();
    expect(await commandCalls(bullpen, 'ping')).toBe(2);
  });

  it('rejects invalid options with the rule, and unknown job types', async () => {
    setup();
    expect(() => checker({ waitingDegradedMs: 10 * MIN, waitingUnhealthyMs: 5 * MIN })).toThrow(
      /waitingUnhealthyMs: must be greater than waitingDegradedMs/,
    );
    expect(() => checker({ checkTimeoutMs: 0 })).toThrow(/checkTimeoutMs/);
    expect(() => checker({ types: ['nope' as string] })).toThrow(/unknown job type\(s\) nope/);
  });
});

describe('HealthChecker when Redis is down or hung', () => {
  let bullpen: Bullpen | undefined;
  afterEach(async () => {
    await bullpen?.close();
    bullpen = undefined;
  });

  it('is unhealthy within the time limit when nothing listens on the port', async () => {
    const port = await freePort();
    bullpen = testBullpen({ port } as EmbeddedRedis, { handledTypes: TYPES });
    const health = new HealthChecker({
      redis: bullpen.redis,
      queues: bullpen.queues,
      types: TYPES,
      checkTimeoutMs: 500,
      deadLetters: async () => 0,
    });
    const started = Date.now();
    const report = await health.check();
    expect(Date.now() - started).toBeLessThan(500 + 1_500);
    expect(report.status).toBe('unhealthy');
    for (const name of ['redis', 'workers', 'queues'] as const) {
      expect(check(report, name).status).toBe('unhealthy');
      expect(['error', 'timeout']).toContain(check(report, name).details.reason);
    }
    expect(check(report, 'deadLetters').status).toBe('healthy');
    expect(await health.publicSummary()).toMatchObject({ status: 'unhealthy', checks: { redis: 'unhealthy' } });
  });

  it('cuts a hung Redis off at the time limit, recovers when it answers, and sees it stop', async () => {
    const own = await startTestRedis();
    const pid = own.child?.pid;
    if (!pid) throw new Error('expected a redis-server this test started');
    try {
      bullpen = testBullpen(own, { handledTypes: TYPES });
      const health = new HealthChecker({ redis: bullpen.redis, queues: bullpen.queues, types: TYPES, checkTimeoutMs: 300, cacheTtlMs: 0 });
      // The first check also connects; on a loaded machine that can take longer than 300 ms.
      const ready = Date.now() + 10_000;
      while (check(await health.check(), 'redis').status !== 'healthy') {
        if (Date.now() > ready) throw new Error('redis check never became healthy');
        await new Promise((r) => setTimeout(r, 50));
      }

      process.kill(pid, 'SIGSTOP'); // the server keeps its sockets but answers nothing
      const started = Date.now();
      let report: HealthReport;
      try {
        report = await health.check();
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      expect(Date.now() - started).toBeLessThan(300 + 1_500);
      expect(report.status).toBe('unhealthy');
      expect(check(report, 'redis')).toMatchObject({ status: 'unhealthy', details: { reason: 'timeout', timeLimitMs: 300 } });

      const deadline = Date.now() + 5_000;
      while (check(await health.check(), 'redis').status !== 'healthy') {
        if (Date.now() > deadline) throw new Error('redis check never recovered after SIGCONT');
        await new Promise((r) => setTimeout(r, 50));
      }

      await own.stop();
      const down = await health.check();
      expect(down.status).toBe('unhealthy');
      expect(check(down, 'redis').status).toBe('unhealthy');
    } finally {
      await own.stop();
    }
  });
});
