/**
 * Where the runtime's time goes (`index.ts profile`): the production worker process
 * (runtime-profile-worker.ts) runs the runtime benchmark's jobs under `node --cpu-prof`,
 * and its profile is split by the hooks that cost something per job (cpu-profile.ts),
 * beside BullMQ's own code and its Redis client. BullMQ's per-minute metrics run inside
 * Redis (one more write in each job's finishing script), where no Node.js profile sees
 * them: their cost is the redis-server's CPU per job for plain BullMQ with and without
 * them, rounds alternating.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MINUTE_POINTS } from '@/lib/metrics/history-layout';
import { type EmbeddedRedis, freePort } from '@/lib/redis/embedded-server';
import { closeChild } from './child';
import { attribute, type CostRule, type CpuProfile } from './cpu-profile';
import { redisCpuSeconds } from './cpu-time';
import type { ProfiledRun } from './runtime-profile-worker';
import { benchCommand, fill, makeBullpen, plainRunner, SETTLE_MS, TYPE, throughput } from './runtime';
import { fmt, median } from './stats';

const ROOT = path.resolve(__dirname, '../..');
/** Sampling interval, µs: a job costs tens of µs, so V8's default 1 ms would see few of each. */
const INTERVAL_US = 100;

/** The costs, in the table's order: the runtime's hooks, then BullMQ's own, then the rest. */
export const COSTS: Array<CostRule & { label: string; group: 'hook' | 'bullmq' }> = [
  {
    id: 'validation',
    label: 'Envelope and payload validation (readEnvelope, the type’s compiled check, or its zod schema)',
    group: 'hook',
    claims: (url) => /\/lib\/jobs\/(envelope|tenant|json-fast-check)\.ts$/.test(url) || url.includes('/node_modules/zod/'),
  },
  {
    id: 'timeout',
    label: 'The time limit (each attempt in its type’s line of deadlines, one timer for the line)',
    group: 'hook',
    // '' is race's promise executor, which the time limit settles.
    claims: (url, fn) =>
      url.endsWith('/lib/runtime/attempt-deadlines.ts') ||
      (url.endsWith('/lib/runtime/job-run.ts') && ['race', '', 'abortWith'].includes(fn)),
  },
  {
    id: 'metrics',
    label: 'Prometheus metrics (counters and the duration histogram, in memory)',
    group: 'hook',
    claims: (url) => /\/lib\/metrics\/(job-stats|worker-metrics)\.ts$/.test(url) || url.includes('/node_modules/prom-client/'),
  },
  {
    id: 'usage',
    label: 'The usage recorder (jobs per tenant and day)',
    group: 'hook',
    claims: (url) => url.endsWith('/quotas/job-usage-recorder.ts'),
  },
  {
    id: 'history',
    label: 'The history tally (hourly counts and histograms, in memory)',
    group: 'hook',
    claims: (url) => /\/lib\/metrics\/history-[a-z-]+\.ts$/.test(url),
  },
  {
    id: 'schedules',
    label: 'Schedules’ last run (is this job a schedule’s run?)',
    group: 'hook',
    claims: (url) => url.includes('/lib/schedules/'),
  },
  {
    id: 'heartbeat',
    label: 'The workers view’s running list (read from the pool’s running attempts at each beat)',
    group: 'hook',
    claims: (url) => url.endsWith('/lib/runtime/worker-heartbeat.ts'),
  },
  {
    id: 'limit',
    label: 'The payload size limit (the data’s length, before parsing)',
    group: 'hook',
    claims: (url) => /\/lib\/(runtime\/bounded-worker|jobs\/payload-limit)\.ts$/.test(url),
  },
  {
    id: 'attempts',
    label: 'The attempt record (a line in the job’s hash for each attempt but a first one that completes)',
    group: 'hook',
    claims: (url) => /\/lib\/runtime\/attempt-(log|record)\.ts$/.test(url),
  },
  {
    id: 'tracing',
    label: 'Trace tags (off: one check)',
    group: 'hook',
    claims: (url) => url.includes('/lib/telemetry/'),
  },
  {
    id: 'processor',
    label: 'The processor itself (its JobRun, try/finally, the pool’s running list)',
    group: 'hook',
    // Any other runtime code; a package's own lib/ folder is the package's.
    claims: (url) => url.includes('/lib/') && !url.includes('/node_modules/'),
  },
  {
    id: 'bullmq',
    label: 'BullMQ (the worker loop, the job object, its scripts’ arguments)',
    group: 'bullmq',
    claims: (url) => /\/node_modules\/(bullmq|msgpackr)\//.test(url),
  },
  {
    id: 'ioredis',
    label: 'ioredis (BullMQ’s Redis client: commands, replies)',
    group: 'bullmq',
    claims: (url) => /\/node_modules\/(ioredis|redis-parser|denque|standard-as-callback|cluster-key-slot|redis-errors)\//.test(url),
  },
];

/** Time the rules do not claim, as the table names it. */
const REST: Array<{ id: string; label: string }> = [
  { id: 'handler', label: 'The benchmark’s no-op handler' },
  { id: 'logging', label: 'Logging (pino)' },
  { id: 'other', label: 'Node.js itself (event loop, sockets, promise jobs)' },
  { id: 'gc', label: 'Garbage collection' },
  { id: 'program', label: 'V8 outside JavaScript (compiling, the profiler’s own)' },
];
const REST_RULES: CostRule[] = [
  { id: 'handler', claims: (url) => url.includes('/scripts/bench/') },
  { id: 'logging', claims: (url) => /\/node_modules\/(pino|sonic-boom|thread-stream)\//.test(url) },
];

export type Side = 'bullpen' | 'plain';

/** One side's profile, split. */
export interface ProfiledSide {
  /** Jobs per second while profiled. */
  rate: number;
  /** µs per job by cost id, the window's samples only. */
  perJob: Record<string, number>;
  /** The largest sources of each cost, with µs per job. */
  files: Record<string, Array<{ file: string; perJob: number }>>;
  /** µs per job of the window's samples that are not idle. */
  busyPerJob: number;
  /** The profiled process's CPU time per job (user + system, the profiler's own cost included). */
  cpuPerJob: number;
  /** Bytes allocated on V8's heap per job, and the collections in the window. */
  heapBytesPerJob: number;
  gcs: number;
  /** Bytes per job the young collections moved to the old generation (HeapWindow). */
  promotedBytesPerJob: number;
}

/** What each cost pays for: the section says it, as issue 26 asks for any cost that stays. */
const WHAT_THEY_BUY = [
  'What each cost buys, and where a hook’s Redis work shows: a row takes only the samples in its own frames, so the',
  'commands a hook sends (the attempt record’s script call, the flushes) land in the ioredis row, and the work its',
  'BullMQ event listeners cause in the BullMQ row; the difference between the two columns of those rows is Bullpen’s too.',
  '- *Validation*: a payload that does not match its type’s schema fails for good with its message and a dead letter,',
  '  instead of reaching a handler; jobs from plain BullMQ producers are checked the same way (docs/producers.md). Each',
  '  schema is compiled once into a plain check (lib/jobs/json-fast-check.ts) that takes what zod would give back',
  '  unchanged, as the dispatcher’s own jobs are, without zod’s copy; anything else is parsed by zod.',
  '- *The time limit*: a handler that ignores its signal cannot hold a worker slot past its type’s time limit.',
  '- *Metrics, the history tally, the usage recorder*: counters in memory, written per interval (the scrape, 5 s',
  '  flushes), for Prometheus, the history charts and the `jobsPerDay` quota; their per-job cost is a few additions.',
  '- *Schedules’ last run*: the schedules page’s last run, a check of each job’s id. *The workers view’s running',
  '  list*: the running jobs the workers page lists, read every 5 s from the pool’s own list of running attempts.',
  '- *The attempt record*: the job page’s timeline of every attempt (docs/architecture.md); a line per attempt that',
  '  failed or followed a failure, sent in one script call per queue every 100 ms. A job that completes at its first',
  '  attempt (every job here) gets no line: the page reads that attempt from BullMQ’s own fields, and so does a later',
  '  completion’s entry, so what is left here is one check of the job’s counts at BullMQ’s `completed` event.',
  '- *BullMQ’s per-minute metrics*: the last-hour charts and the per-minute counts that fill the hourly history’s gaps,',
  '  written with each job by BullMQ itself, so a crashed worker loses none of them; paid by the redis-server.',
];

export interface RuntimeProfileResult {
  jobs: number;
  /** The worker process as shipped, and a plain BullMQ Worker in a process of the same kind. */
  sides: Record<Side, ProfiledSide>;
  /** The redis-server's CPU per job, plain BullMQ without and with per-minute metrics (medians). */
  redisPerJob: { plain: number; plainMetrics: number };
  metricsRounds: number;
}

/** Runs `jobs` jobs through the profiled worker process and splits its profile. */
async function profiledRun(redis: EmbeddedRedis, jobs: number, side: Side) {
  const prefix = `bench-profile-${side}`;
  const bullpen = makeBullpen(redis, prefix);
  const queue = bullpen.queues.get(TYPE);
  // Filled paused and resumed once the process has settled, as the runtime benchmark does.
  await queue.pause();
  await fill(queue, jobs);
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-profile-'));
  try {
    const child = spawn(
      process.execPath,
      [
        '--cpu-prof',
        '--cpu-prof-dir',
        dir,
        '--cpu-prof-interval',
        String(INTERVAL_US),
        '--expose-gc',
        '--import',
        'tsx',
        path.join(__dirname, 'runtime-profile-worker.ts'),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: {
          ...process.env,
          REDIS_URL: redis.url,
          REDIS_CLUSTER_NODES: '',
          BULLPEN_PREFIX: prefix,
          WORKER_TYPES: TYPE,
          METRICS_PORT: String(await freePort()),
          LOG_LEVEL: 'info',
          BENCH_JOBS: String(jobs),
          BENCH_SIDE: side,
        },
      },
    );
    const run = new Promise<ProfiledRun>((resolve, reject) => {
      child.on('message', (m: { ready?: boolean; run?: ProfiledRun }) => {
        if (m.ready) void new Promise((r) => setTimeout(r, SETTLE_MS)).then(() => queue.resume());
        if (m.run) resolve(m.run);
      });
      child.once('exit', (code) => reject(new Error(`the profiled worker exited (${code}) before its jobs were done`)));
    });
    const ran = await run;
    await new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));
    await closeChild(child);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`node --cpu-prof wrote no profile in ${dir}`);
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    return { run: ran, profile };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await queue.obliterate({ force: true });
    await bullpen.close();
  }
}

/** The redis-server's CPU per job for plain BullMQ, with or without BullMQ's per-minute metrics. */
async function plainCost(redis: EmbeddedRedis, jobs: number, metrics: boolean, label: string) {
  const bullpen = makeBullpen(redis, `bench-profile-plain-${label}`);
  const queue = bullpen.queues.get(TYPE);
  try {
    const runner = plainRunner(bullpen, metrics ? { metrics: { maxDataPoints: MINUTE_POINTS } } : {});
    let before = 0;
    let after = 0;
    await throughput(
      runner,
      queue,
      jobs,
      {},
      {
        started: async () => {
          before = await redisCpuSeconds(bullpen);
        },
        finished: async () => {
          after = await redisCpuSeconds(bullpen);
        },
      },
    );
    return { redis: ((after - before) * 1e6) / jobs };
  } finally {
    await queue.obliterate({ force: true });
    await bullpen.close();
  }
}

/** Profiles one side's worker process through `jobs` jobs and splits its samples. */
export async function profileSide(redis: EmbeddedRedis, jobs: number, side: Side): Promise<ProfiledSide> {
  const { run, profile } = await profiledRun(redis, jobs, side);
  const split = attribute(profile, [...COSTS, ...REST_RULES], run.firstUs, run.lastUs, ROOT);
  const perJob: Record<string, number> = {};
  for (const [id, us] of split.micros) perJob[id] = us / run.jobs;
  const files: ProfiledSide['files'] = {};
  for (const [id, byFile] of split.files) {
    files[id] = [...byFile]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([file, us]) => ({ file, perJob: us / run.jobs }));
  }
  const rate = (run.jobs * 1e6) / (run.lastUs - run.firstUs);
  const heapBytesPerJob = run.heap.allocatedBytes / run.jobs;
  console.log(
    `  profiled ${side}: ${run.jobs} jobs at ${fmt(rate, 0)} jobs/s, ${fmt(run.cpuUs / run.jobs, 1)} µs of CPU, ${fmt(heapBytesPerJob, 0)} bytes of heap (${fmt(run.heap.promotedBytes / run.jobs, 0)} promoted) per job`,
  );
  return {
    rate,
    perJob,
    files,
    busyPerJob: (split.total - (split.micros.get('idle') ?? 0)) / run.jobs,
    cpuPerJob: run.cpuUs / run.jobs,
    heapBytesPerJob,
    gcs: run.heap.gcs,
    promotedBytesPerJob: run.heap.promotedBytes / run.jobs,
  };
}

export async function runRuntimeProfile(opts: { redis: EmbeddedRedis; jobs: number; rounds: number }): Promise<RuntimeProfileResult> {
  const bullpen = await profileSide(opts.redis, opts.jobs, 'bullpen');
  const plainSide = await profileSide(opts.redis, opts.jobs, 'plain');
  const plain: number[] = [];
  const withMetrics: number[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const metrics of order) {
      const cost = await plainCost(opts.redis, opts.jobs, metrics, `${r}-${metrics}`);
      (metrics ? withMetrics : plain).push(cost.redis);
      console.log(`  plain BullMQ ${metrics ? 'with' : 'without'} per-minute metrics: Redis ${fmt(cost.redis, 1)} µs/job`);
    }
  }
  return {
    jobs: opts.jobs,
    sides: { bullpen, plain: plainSide },
    redisPerJob: { plain: median(plain), plainMetrics: median(withMetrics) },
    metricsRounds: opts.rounds,
  };
}

export function runtimeProfileSection(r: RuntimeProfileResult): string {
  const b = r.sides.bullpen;
  const p = r.sides.plain;
  const us = (side: ProfiledSide, id: string) => side.perJob[id] ?? 0;
  const where = (id: string) => (b.files[id] ?? []).map((f) => `\`${f.file}\``).join(', ') || '–';
  const cells = (id: string) => `${fmt(us(b, id), 1)} | ${fmt(us(p, id), 1)} | ${fmt((100 * us(b, id)) / b.busyPerJob, 1)} %`;
  const row = (label: string, id: string) => `| ${label} | ${where(id)} | ${cells(id)} |`;
  const hooks = COSTS.filter((c) => c.group === 'hook');
  const sum = (side: ProfiledSide, ids: string[]) => ids.reduce((s, id) => s + us(side, id), 0);
  const total = (label: string, ids: string[]) =>
    `| **${label}** | | **${fmt(sum(b, ids), 1)}** | **${fmt(sum(p, ids), 1)}** | **${fmt((100 * sum(b, ids)) / b.busyPerJob, 1)} %** |`;
  const metricsRedis = r.redisPerJob.plainMetrics - r.redisPerJob.plain;
  return [
    '## Where the runtime’s time goes',
    '',
    `Command: \`${benchCommand(['BENCH_PROFILE_JOBS', 'BENCH_PROFILE_ROUNDS'])}\`. The production worker process of the runtime benchmark`,
    `(\`scripts/bench/runtime-profile-worker.ts\`: \`worker/main.ts\`’s composition, \`WORKER_TYPES=${TYPE}\`, the no-op handler, concurrency 50,`,
    'info logs to /dev/null) runs under `node --cpu-prof` (a sample every 100 µs) through ' +
      `${r.jobs.toLocaleString('en-US')} pre-filled jobs; then a plain BullMQ Worker`,
    'with the runtime benchmark’s options for that side, in a process of the same kind, through as many. Each sample goes to',
    'the innermost frame of its stack that a row claims (zod under the processor is validation, a timer the timeout sets is',
    'the timeout’s), counting only samples between the first job’s start and the last one’s end; µs per job is the',
    'samples’ time over the jobs. V8 samples by the clock: on a loaded machine, time a process waited for a core lands on',
    'whatever stack it waited in, so compare the two columns and the shares rather than the µs with other runs.',
    '',
    '| | Bullpen | plain BullMQ |',
    '|---|---:|---:|',
    `| jobs/s while profiled | ${fmt(b.rate, 0)} | ${fmt(p.rate, 0)} |`,
    `| CPU µs per job (user + system, the profiler’s own included) | ${fmt(b.cpuPerJob, 1)} | ${fmt(p.cpuPerJob, 1)} |`,
    `| samples not idle, µs per job | ${fmt(b.busyPerJob, 1)} | ${fmt(p.busyPerJob, 1)} |`,
    `| bytes allocated on V8’s heap per job (what the garbage collection row pays for; a loaded machine changes it least) | ${fmt(b.heapBytesPerJob, 0)} | ${fmt(p.heapBytesPerJob, 0)} |`,
    `| garbage collections between the first job’s start and the last one’s end | ${b.gcs} | ${p.gcs} |`,
    `| of those bytes, moved to the old generation by young collections (see below) | ${fmt(b.promotedBytesPerJob, 0)} | ${fmt(p.promotedBytesPerJob, 0)} |`,
    '',
    '| cost per job | where in Bullpen (largest first) | Bullpen µs/job | plain BullMQ µs/job | share of Bullpen’s samples |',
    '|---|---|---:|---:|---:|',
    ...hooks.map((c) => row(c.label, c.id)),
    total(
      'The runtime’s hooks together',
      hooks.map((c) => c.id),
    ),
    ...COSTS.filter((c) => c.group === 'bullmq').map((c) => row(c.label, c.id)),
    total('BullMQ’s own together', ['bullmq', 'ioredis']),
    ...REST.map((c) => row(c.label, c.id)),
    '',
    `**Garbage collection** (${fmt(us(b, 'gc'), 1)} µs per job on Bullpen’s side, ${fmt(us(p, 'gc'), 1)} on plain BullMQ’s, for ${fmt(b.heapBytesPerJob / p.heapBytesPerJob, 2)}× the bytes allocated): a young`,
    'collection’s cost is what it copies, not what it frees. An object still reachable at two young collections in a row (one',
    'every 13 MB or so allocated here, a few hundred jobs) is copied into the old generation and freed only by a full one:',
    `${fmt(b.promotedBytesPerJob, 0)} bytes per job on Bullpen’s side, ${fmt(p.promotedBytesPerJob, 0)} on plain BullMQ’s, although a job lives a few milliseconds.`,
    'The cause is a Map or a Set whose entries come and go at every job: V8 replaces its table every few dozen entries and',
    'links the replaced table to its successor (for iterators still walking it), so once a full collection has moved one',
    'table to the old generation, every young collection keeps each later table, and what its entries point at, until the',
    'next full one. BullMQ’s worker has two (its lock manager’s jobs, its fetch loop’s pending set), on both sides. A worker',
    'is in that state from its first full collection under load on, so each side’s window starts with one. Bullpen keeps',
    'its running attempts in a list threaded through them (`lib/runtime/running-attempts.ts`) rather than a Map, and the',
    'JSON text of each job’s data with the attempt rather than on the job (`lib/runtime/bounded-worker.ts`), so that its',
    'own part of what is copied stays small.',
    '',
    `**BullMQ’s per-minute metrics** (\`metrics: { maxDataPoints: ${MINUTE_POINTS} }\`, what the dashboard’s charts read) cost nothing`,
    'in the worker process: they are one more write inside each job’s finishing script. The redis-server’s CPU per job,',
    `plain BullMQ, median of ${r.metricsRounds} rounds each, alternating: **${fmt(r.redisPerJob.plain, 1)} µs without them,`,
    `${fmt(r.redisPerJob.plainMetrics, 1)} µs with them** (${metricsRedis >= 0 ? '+' : ''}${fmt(metricsRedis, 1)} µs per job).`,
    '',
    ...WHAT_THEY_BUY,
    '',
  ].join('\n');
}
