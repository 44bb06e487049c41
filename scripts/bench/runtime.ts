/**
 * Runtime benchmark: the production worker process (worker/main.ts: the
 * runtime with the shipped application's schedules, dead-letter store and reconciler, usage
 * recorder and /metrics server) with a no-op handler, beside plain BullMQ Workers, in the
 * same run, on the same redis-server, with the same jobs and job options. The target is
 * judged against plain BullMQ given the same BullMQ worker options too (SAME_WORKER_OPTIONS:
 * its name and the per-minute metrics, both of which DESIGN.md asks of every worker): the
 * difference is then what the runtime's own code adds per job, envelope and payload
 * validation, the time limit and the run hooks (metrics, usage, schedules' last run, the
 * attempt record, the history tally). A third side, plain BullMQ with the job options only,
 * shows what those two worker options cost BullMQ itself.
 */
import { type Queue, Worker, type WorkerOptions } from 'bullmq';
import pino from 'pino';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import type { RedisClient } from '@/lib/redis/connection';
import { shippedApp } from '@/jobs/shipped-app';
import { loadConfig } from '@/lib/config';
import { type EmbeddedRedis, freePort } from '@/lib/redis/embedded-server';
import type { RunningWorker } from '@/lib/runtime/worker-process';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { ownCpuSeconds, redisCpuSeconds } from './cpu-time';
import { fmt, median, pairedRatio, percentile } from './stats';
import { MINUTE_POINTS } from '@/lib/metrics/history-layout';

/** The job type both sides run (its production defaults: priority HIGH, 10 attempts, full jitter). */
export const TYPE = 'webhook-dispatch' as const;
const CONCURRENCY = 50;

export interface RuntimeBenchOptions {
  redis: EmbeddedRedis;
  jobs: number;
  rounds: number;
  latencySamples: number;
}

export interface RuntimeBenchResult {
  jobs: number;
  rounds: number;
  plainJobsPerSec: number[];
  /** Plain BullMQ given the BullMQ worker options a Bullpen worker sets (SAME_WORKER_OPTIONS). */
  optionsJobsPerSec: number[];
  bullpenJobsPerSec: number[];
  /**
   * The median of the rounds' ratios, Bullpen over plain BullMQ with the same job and worker
   * options: what the target is judged on (issue 26: "plain BullMQ with the same options").
   */
  ratio: number;
  /** The same against plain BullMQ with the job options only: the worker options' cost included. */
  bareRatio: number;
  /** Plain BullMQ with no priority (the plain wait list): the fastest path, for scale. */
  plainUnprioritized: number;
  latency: { plain: LatencyStats; bullpen: LatencyStats };
  /** Medians over the counted rounds: CPU µs per job of the worker (the bench process) and of the redis-server. */
  cpu: Record<Side, CpuPerJob>;
}

type Side = 'plain' | 'options' | 'bullpen';

/**
 * The BullMQ worker options a Bullpen worker sets that cost per job (lib/runtime/worker-pool.ts;
 * its stall and lock settings are BullMQ's defaults, its backoff strategy runs only on a
 * failure): its name, which BullMQ writes on each job it takes (the attempt timeline's
 * worker; DESIGN.md: "give every Worker a `name`"), and the per-minute metrics, written in
 * each job's finishing script (the dashboard's last-hour charts, docs/observability.md;
 * DESIGN.md: "BullMQ's own per-minute metrics for charts"). A plain BullMQ deployment that
 * gives operators what Bullpen does sets both: the target's baseline has them.
 */
export const SAME_WORKER_OPTIONS: Partial<WorkerOptions> = {
  name: 'bench-plain',
  metrics: { maxDataPoints: MINUTE_POINTS },
};

interface CpuPerJob {
  worker: number;
  redis: number;
}

/** The target of docs/benchmarks.md's runtime ratio (issue 26: every hook on, as shipped). */
export const RATIO_TARGET = 0.95;

interface LatencyStats {
  p50: number;
  p95: number;
  p99: number;
  samples: number;
}

type Runner = {
  start(onJob: (dispatchedAt: number) => void): Promise<void>;
  stop(): Promise<void>;
};

/** Production log level, written to /dev/null: formatting costs are counted. */
const benchLogger = () => pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));

/** A Bullpen under `prefix`: the bench's producer side (fills and obliterates the queue). */
export function makeBullpen(redis: EmbeddedRedis, prefix: string): Bullpen {
  return createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'info' }),
    redis: { host: '127.0.0.1', port: redis.port },
    prefix,
    logger: benchLogger(),
  });
}

/**
 * The worker process as `npm run worker` composes it, with the no-op handler in place
 * of webhook-dispatch's own and only that type's workers (WORKER_TYPES), on a free
 * /metrics port; `env` adds configuration (the history benchmark turns BULLPEN_HISTORY off).
 */
export function bullpenRunner(redis: EmbeddedRedis, prefix: string, env: Record<string, string> = {}): Runner {
  let running: RunningWorker | undefined;
  return {
    async start(onJob) {
      running = await startAppWorker(shippedApp, {
        config: loadConfig({ LOG_LEVEL: 'info', WORKER_TYPES: TYPE, METRICS_PORT: String(await freePort()), ...env }),
        redis: { host: '127.0.0.1', port: redis.port },
        prefix,
        logger: benchLogger(),
        handlers: {
          [TYPE]: async (ctx) => {
            onJob((ctx.data.payload as { t: number }).t);
          },
        },
        concurrency: CONCURRENCY,
      });
    },
    async stop() {
      await running?.stop(10_000);
    },
  };
}

/** Plain BullMQ on the Bullpen's queue and connection; `extra` adds Worker options (the profile's per-minute metrics). */
export function plainRunner(bullpen: Bullpen, extra: Partial<WorkerOptions> = {}): Runner {
  let worker: Worker | undefined;
  let connection: RedisClient | undefined;
  return {
    async start(onJob) {
      connection = bullpen.workerConnection();
      worker = new Worker(
        TYPE,
        async (job) => {
          onJob((job.data.payload.payload as { t: number }).t);
        },
        { connection, prefix: bullpen.keys.queuePrefix(TYPE), concurrency: CONCURRENCY, autorun: false, ...extra },
      );
      void worker.run();
      await worker.waitUntilReady();
    },
    async stop() {
      await worker?.close();
      connection?.disconnect();
    },
  };
}

export async function fill(queue: Queue, n: number, opts: { priority?: number } = {}): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < n; i += 1_000) {
    const size = Math.min(1_000, n - i);
    await queue.addBulk(
      Array.from({ length: size }, (_, j) => ({
        name: TYPE,
        data: { payload: { webhookId: 'bench', event: 'bench', payload: { t: now, n: i + j } }, requestId: `r${i + j}`, dispatchedAt: now },
        ...(opts.priority === undefined ? {} : { opts: { priority: opts.priority } }),
      })),
    );
  }
}

/**
 * How long a started worker is left before its queue is resumed: the worker process's start-up
 * work (schedules, the reconciler's first sweep, the first heartbeat) runs once per process,
 * not per job, and is over by then.
 */
export const SETTLE_MS = 1_000;

/**
 * Jobs per second from the first job's start to the last one's, in the steady state: the
 * queue is filled paused, the runner started and left to settle, and only then resumed,
 * so a side's start-up is not counted against its jobs. `around` runs just before the
 * queue is resumed and once the last job ran, before the runner stops (CPU is read there);
 * its `settleMs` (default SETTLE_MS) is the wait, 0 for a caller that meters the whole run.
 */
export async function throughput(
  runner: Runner,
  queue: Queue,
  n: number,
  fillOpts: { priority?: number } = {},
  around: { started?: () => Promise<void>; finished?: () => Promise<void>; settleMs?: number } = {},
): Promise<number> {
  await queue.pause();
  await fill(queue, n, fillOpts);
  let done = 0;
  let started = 0;
  let resolveDone!: () => void;
  const finished = new Promise<void>((r) => (resolveDone = r));
  await runner.start(() => {
    if (done === 0) started = performance.now();
    if (++done === n) resolveDone();
  });
  await new Promise((r) => setTimeout(r, around.settleMs ?? SETTLE_MS));
  if (done > 0) throw new Error(`${done} job(s) of a paused queue ran before it was resumed`);
  await around.started?.();
  const t0 = performance.now();
  await queue.resume();
  await finished;
  const elapsed = (performance.now() - (started || t0)) / 1_000;
  await around.finished?.();
  await runner.stop();
  return n / elapsed;
}

/**
 * Pickup latency, both sides at once: each side's worker idles on its own queue, and
 * one job at a time goes to one of them, the side going first alternating with each
 * pair, so a noisy moment of the machine lands on both alike. Latency is add → the
 * handler's start.
 */
async function pickupLatency(
  sides: Record<'plain' | 'bullpen', { runner: Runner; queue: Queue }>,
  samples: number,
): Promise<Record<'plain' | 'bullpen', LatencyStats>> {
  const latencies = { plain: [] as number[], bullpen: [] as number[] };
  let resolveOne: (() => void) | undefined;
  for (const kind of ['plain', 'bullpen'] as const) {
    await sides[kind].runner.start((dispatchedAt) => {
      latencies[kind].push(Date.now() - dispatchedAt);
      resolveOne?.();
    });
  }
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? (['plain', 'bullpen'] as const) : (['bullpen', 'plain'] as const);
    for (const kind of order) {
      const got = new Promise<void>((r) => (resolveOne = r));
      const t = Date.now();
      await sides[kind].queue.add(TYPE, {
        payload: { webhookId: 'bench', event: 'bench', payload: { t } },
        requestId: `l${i}`,
        dispatchedAt: t,
      });
      await got;
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  for (const kind of ['plain', 'bullpen'] as const) await sides[kind].runner.stop();
  const stats = (xs: number[]): LatencyStats => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), samples: sorted.length };
  };
  return { plain: stats(latencies.plain), bullpen: stats(latencies.bullpen) };
}

export async function runRuntimeBench(opts: RuntimeBenchOptions): Promise<RuntimeBenchResult> {
  const jobsPerSec: Record<Side, number[]> = { plain: [], options: [], bullpen: [] };
  const cpu: Record<Side, CpuPerJob[]> = { plain: [], options: [], bullpen: [] };
  const round = async (kind: Side, label: string, jobs: number, counted = true) => {
    const prefix = `bench-${kind}-${label}`;
    const bullpen = makeBullpen(opts.redis, prefix);
    const queue = bullpen.queues.get(TYPE);
    const runner =
      kind === 'bullpen' ? bullpenRunner(opts.redis, prefix) : plainRunner(bullpen, kind === 'options' ? SAME_WORKER_OPTIONS : {});
    const at = { own: 0, redis: 0 };
    const rate = await throughput(
      runner,
      queue,
      jobs,
      {},
      {
        started: async () => {
          at.redis = await redisCpuSeconds(bullpen);
          at.own = ownCpuSeconds();
        },
        finished: async () => {
          const own = ownCpuSeconds() - at.own;
          const redis = (await redisCpuSeconds(bullpen)) - at.redis;
          if (counted) cpu[kind].push({ worker: (own * 1e6) / jobs, redis: (redis * 1e6) / jobs });
        },
      },
    );
    await queue.obliterate({ force: true });
    await bullpen.close();
    return rate;
  };
  // A warm-up round each, not counted: the first round ran cold (JIT, Redis's
  // allocator, the scripts' first load) and always went to whichever side ran first.
  const sides: Side[] = ['plain', 'options', 'bullpen'];
  for (const kind of sides) {
    console.log(`  warm-up ${kind.padEnd(7)} ${fmt(await round(kind, 'warmup', Math.ceil(opts.jobs / 2), false), 0)} jobs/s (not counted)`);
  }
  for (let r = 0; r < opts.rounds; r++) {
    // Rotate which goes first so a warming or noisy machine favours none.
    const order = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
    for (const kind of order) {
      const rate = await round(kind, String(r), opts.jobs);
      jobsPerSec[kind].push(rate);
      console.log(`  round ${r + 1} ${kind.padEnd(7)} ${fmt(rate, 0)} jobs/s`);
    }
  }
  const reference = makeBullpen(opts.redis, 'bench-plain-nopriority');
  const refQueue = reference.queues.get(TYPE);
  const plainUnprioritized = await throughput(plainRunner(reference), refQueue, opts.jobs, { priority: 0 });
  console.log(`  reference: plain BullMQ without priority ${fmt(plainUnprioritized, 0)} jobs/s`);
  await refQueue.obliterate({ force: true });
  await reference.close();

  const producers = { plain: makeBullpen(opts.redis, 'bench-latency-plain'), bullpen: makeBullpen(opts.redis, 'bench-latency-bullpen') };
  const latency = await pickupLatency(
    {
      plain: { runner: plainRunner(producers.plain), queue: producers.plain.queues.get(TYPE) },
      bullpen: { runner: bullpenRunner(opts.redis, 'bench-latency-bullpen'), queue: producers.bullpen.queues.get(TYPE) },
    },
    opts.latencySamples,
  );
  for (const kind of ['plain', 'bullpen'] as const) {
    console.log(`  pickup ${kind.padEnd(7)} p50 ${latency[kind].p50} ms, p95 ${latency[kind].p95} ms, p99 ${latency[kind].p99} ms`);
    await producers[kind].queues.get(TYPE).obliterate({ force: true });
    await producers[kind].close();
  }
  const cpuMedian = (kind: Side): CpuPerJob => ({
    worker: median(cpu[kind].map((c) => c.worker)),
    redis: median(cpu[kind].map((c) => c.redis)),
  });
  return {
    jobs: opts.jobs,
    rounds: opts.rounds,
    plainJobsPerSec: jobsPerSec.plain,
    optionsJobsPerSec: jobsPerSec.options,
    bullpenJobsPerSec: jobsPerSec.bullpen,
    ratio: pairedRatio(jobsPerSec.bullpen, jobsPerSec.options),
    bareRatio: pairedRatio(jobsPerSec.bullpen, jobsPerSec.plain),
    plainUnprioritized,
    latency,
    cpu: { plain: cpuMedian('plain'), options: cpuMedian('options'), bullpen: cpuMedian('bullpen') },
  };
}

/** How this run was started, with the size knobs it was given: what a reader types to repeat it. */
export function benchCommand(knobs: string[]): string {
  const env = ['BENCH_LOAD_WAIT_S', ...knobs].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `);
  const args = process.argv.slice(2);
  return `${env.join('')}${args.length ? `node --import tsx scripts/bench/index.ts ${args.join(' ')}` : 'npm run bench'}`;
}

export function runtimeSection(r: RuntimeBenchResult): string {
  const rows = r.plainJobsPerSec.map((p, i) => {
    const [o, b] = [r.optionsJobsPerSec[i], r.bullpenJobsPerSec[i]];
    return `| ${i + 1} | ${fmt(o, 0)} | ${fmt(p, 0)} | ${fmt(b, 0)} | ${fmt(b / o, 2)} | ${fmt(b / p, 2)} |`;
  });
  const cpuRow = (label: string, k: Side) => `| ${label} | ${fmt(r.cpu[k].worker, 1)} | ${fmt(r.cpu[k].redis, 1)} |`;
  const lat = (k: 'plain' | 'bullpen') =>
    `| ${k === 'plain' ? 'plain BullMQ' : 'Bullpen runtime'} | ${r.latency[k].p50} | ${r.latency[k].p95} | ${r.latency[k].p99} | ${r.latency[k].samples} |`;
  return [
    '## Worker runtime',
    '',
    `Command: \`${benchCommand(['BENCH_JOBS', 'BENCH_ROUNDS'])}\`. No-op handler, concurrency ${CONCURRENCY}, ${r.jobs.toLocaleString('en-US')} jobs pre-filled per round, the same job`,
    'options for every side (the webhook-dispatch defaults: priority HIGH, 10 attempts, full-jitter backoff). The Bullpen',
    'side is the production worker process (`worker/main.ts`, as `npm run worker` starts it, with',
    '`WORKER_TYPES=webhook-dispatch` and the no-op handler in place of the real one): its schedules, dead-letter',
    'store and reconciler, the jobs-per-day usage recorder and the /metrics server run beside the workers. Per job',
    'it validates the envelope and payload, arms the timeout, runs the hooks (Prometheus metrics, usage, the workers view’s running list, each attempt’s record, a',
    'schedule’s last run) and records BullMQ’s per-minute metrics (one more write in each job’s finishing',
    'script), which the dashboard’s charts read, and tallies the hourly history (written every 5 s; its own cost is',
    'the "History roll-up" section). The log level is `info` (to /dev/null), at which a completed job',
    'writes no line; no job fails, so no error is classified and no dead letter written.',
    '',
    'The target’s baseline is plain BullMQ with the same options, the job options above and the two BullMQ worker',
    'options a Bullpen worker sets that cost per job (`lib/runtime/worker-pool.ts`): `name`, which BullMQ writes on each',
    'job it takes (the job page’s attempt timeline names the worker of each attempt from it; DESIGN.md: “give every',
    'Worker a `name`”), and `metrics: { maxDataPoints }`, BullMQ’s per-minute counts written in each job’s finishing',
    'script (docs/observability.md: the last-hour charts, the history’s gaps, the alert rules’ rates; DESIGN.md:',
    '“BullMQ’s own per-minute metrics for charts”). A plain BullMQ deployment that shows operators what Bullpen shows sets',
    'both, so what the ratio measures is Bullpen’s own code. A third side, plain BullMQ with the job options only, shows',
    'what the two worker options cost BullMQ itself. One warm-up',
    'round per side runs first and is not counted; the rounds then rotate which side goes first. Each round fills its queue',
    `paused, starts the worker, leaves it ${SETTLE_MS / 1_000} s to settle (a worker process’s start-up: schedules, the reconciler’s first`,
    'sweep, the first heartbeat) and then resumes the queue: jobs/s run from the first job’s start to the last one’s.',
    '',
    '| round | plain BullMQ, same options jobs/s | plain BullMQ, job options only jobs/s | Bullpen jobs/s | Bullpen / plain, same options | Bullpen / plain, job options only |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `**Median of the rounds’ ratios: ${fmt(r.ratio, 3)}** against plain BullMQ with the same options (target ≥ ${fmt(RATIO_TARGET, 2)}: ${r.ratio >= RATIO_TARGET ? 'met' : '**not met**'};`,
    `the sides’ medians, ${fmt(median(r.bullpenJobsPerSec), 0)} vs ${fmt(median(r.optionsJobsPerSec), 0)} jobs/s, give ${fmt(median(r.bullpenJobsPerSec) / median(r.optionsJobsPerSec), 3)}, but they come from different rounds).`,
    `Against plain BullMQ with the job options only: ${fmt(r.bareRatio, 3)} (medians ${fmt(median(r.bullpenJobsPerSec), 0)} vs`,
    `${fmt(median(r.plainJobsPerSec), 0)} jobs/s); the two worker options alone take plain BullMQ to ${fmt(pairedRatio(r.optionsJobsPerSec, r.plainJobsPerSec), 3)} of itself (the`,
    'median of the rounds’ ratios again): most of that is the per-minute metrics’ writes in Redis (the instructions per job below).',
    '',
    'CPU per job, medians of the counted rounds (the worker runs in the bench process on every side; the redis-server is the',
    'same one): what a loaded machine changes least, since it counts work rather than waiting.',
    '',
    '| | worker CPU µs/job | redis-server CPU µs/job |',
    '|---|---:|---:|',
    cpuRow('plain BullMQ, same options', 'options'),
    cpuRow('plain BullMQ, job options only', 'plain'),
    cpuRow('Bullpen runtime', 'bullpen'),
    `| Bullpen / plain, same options | ${fmt(r.cpu.bullpen.worker / r.cpu.options.worker, 2)} | ${fmt(r.cpu.bullpen.redis / r.cpu.options.redis, 2)} |`,
    '',
    `For scale: plain BullMQ with jobs that carry no priority (the plain \`wait\` list) did ${fmt(r.plainUnprioritized, 0)} jobs/s in the same run.`,
    'Every Bullpen job type has a default priority so that a more urgent dispatch overtakes the backlog',
    '(docs/architecture.md); BullMQ serves prioritized jobs from a sorted set, which is what the figures above pay.',
    '',
    'Job pickup latency (add → handler start, one job at a time into an idle worker, ms; target p99 < 10 ms). Both',
    'workers idle at once on their own queues and the samples alternate between them, the side going first',
    'changing with each pair:',
    '',
    '| | p50 | p95 | p99 | samples |',
    '|---|---:|---:|---:|---:|',
    lat('plain'),
    lat('bullpen'),
    '',
  ].join('\n');
}
