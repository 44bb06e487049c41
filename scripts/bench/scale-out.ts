/**
 * Scale-out benchmark (issue 11, "many workers"): aggregate jobs/s of 1, 2 and 4 worker
 * processes sharing three queues, on one redis-server and on a three-master Redis
 * Cluster started here (scripts/bench/bench-cluster.ts), beside redis-server's own
 * EVALSHA ceiling measured with `redis-benchmark` in the same run.
 *
 * Each worker process is the production composition (scripts/bench/scale-out-worker.ts)
 * with no-op handlers on quota-check, webhook-dispatch and index-rebalance, whose hash
 * tags fall on the three masters of a default cluster. A round pauses the queues, fills
 * them through the dispatcher, then resumes them and times until the processes report
 * (over IPC, not through Redis) that they ran every job. Per configuration: the
 * processes start once, one warm-up round of half the jobs is not counted, then the
 * measured rounds; the figure is their median. Over each measured round it reads INFO
 * commandstats (script calls and commands per job) and /proc (CPU of the redis-servers
 * and of the worker processes).
 *
 * Env knobs (defaults keep the section to a few minutes on two cores):
 *   BENCH_SCALE_JOBS         jobs per measured round, split over the three queues (15,000)
 *   BENCH_SCALE_ROUNDS       measured rounds per configuration (3)
 *   BENCH_SCALE_PROCESSES    worker process counts to run (1,2,4)
 *   BENCH_SCALE_CONCURRENCY  concurrency per queue in each process (50, as the runtime benchmark)
 *   BENCH_SCALE_CEILING_CALLS redis-benchmark requests for the job-shaped script, twice as many
 *                            for the empty one, three runs each (100,000)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { shippedApp } from '@/jobs/shipped-app';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import type { RedisTarget } from '@/lib/redis/connection';
import { type EmbeddedRedis, freePort } from '@/lib/redis/embedded-server';
import { startBenchCluster } from './bench-cluster';
import { cpuTicks, parseCommandStats, type ScaleOutResult, type ScaleOutRow } from './scale-out-section';
import { fmt, median } from './stats';

/** One queue per master of a default three-master cluster (slots 2362, 10217 and 12764), with their payloads. */
const QUEUES = {
  'quota-check': {},
  'webhook-dispatch': { webhookId: 'bench', event: 'bench', payload: {} },
  'index-rebalance': {},
} as const;
type QueueType = keyof typeof QUEUES;
const TYPES = Object.keys(QUEUES) as QueueType[];
/** redis-benchmark's clients and pipeline depth for the ceiling: enough to keep the server busy. */
const CEILING_CLIENTS = 50;
const CEILING_PIPELINE = 16;
/** A round that has not finished by then has lost jobs: the benchmark stops and says so. */
const ROUND_TIMEOUT_MS = 300_000;

export interface ScaleOutOptions {
  /** The benchmark's standalone redis-server (also where the ceiling is measured). */
  redis: EmbeddedRedis;
  jobs: number;
  rounds: number;
  processes: number[];
  concurrency: number;
  ceilingCalls: number;
}

/** Where Redis is, for the bench's own Bullpen and for the worker processes. */
interface Backend {
  name: string;
  target: RedisTarget;
  env: Record<string, string>;
  /** `host:port` of every server, read with INFO. */
  nodes: string[];
  pids: Array<number | undefined>;
}

interface WorkerProcess {
  child: ChildProcess;
  ran: number;
  exited: Promise<void>;
}

interface Snapshot {
  commands: number;
  scripts: number;
  redisCpuMs: number | undefined;
  workerCpuMs: number;
}

const root = path.resolve(__dirname, '../..');
const benchLogger = () => pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));

function cli(node: string, ...args: string[]): string {
  const [host, port] = node.split(':');
  const out = spawnSync('redis-cli', ['-h', host, '-p', port, ...args], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`redis-cli ${args[0]} on ${node}: ${out.stderr || out.stdout}`);
  return out.stdout;
}

function commandStats(node: string): { commands: number; scripts: number } {
  return parseCommandStats(cli(node, 'info', 'commandstats'));
}

let clockTicks: number | undefined;

/** User plus system CPU time of a process so far, in ms. */
function cpuMs(pid: number): number {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return (cpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1_000) / clockTicks;
}

function snapshot(backend: Backend, workers: WorkerProcess[]): Snapshot {
  const stats = backend.nodes.map(commandStats);
  const redisPids = backend.pids.filter((p): p is number => p !== undefined);
  return {
    commands: stats.reduce((s, x) => s + x.commands, 0),
    scripts: stats.reduce((s, x) => s + x.scripts, 0),
    redisCpuMs: redisPids.length === backend.pids.length ? redisPids.reduce((s, p) => s + cpuMs(p), 0) : undefined,
    workerCpuMs: workers.reduce((s, w) => s + cpuMs(w.child.pid!), 0),
  };
}

async function startWorkers(n: number, backend: Backend, prefix: string, concurrency: number): Promise<WorkerProcess[]> {
  const started = Array.from({ length: n }, async () => {
    const env = {
      ...process.env,
      ...backend.env,
      BULLPEN_PREFIX: prefix,
      WORKER_TYPES: TYPES.join(','),
      METRICS_PORT: String(await freePort()),
      BENCH_CONCURRENCY: String(concurrency),
      LOG_LEVEL: 'info',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'scale-out-worker.ts')], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const worker: WorkerProcess = { child, ran: 0, exited: new Promise((r) => child.once('exit', () => r())) };
    await new Promise<void>((resolve, reject) => {
      child.on('message', (m: { ready?: boolean; ran?: number }) => {
        if (m.ready) resolve();
        if (m.ran !== undefined) {
          worker.ran = m.ran;
          onProgress?.();
        }
      });
      child.once('exit', (code) => reject(new Error(`scale-out worker exited (${code}) before ready:\n${stderr}`)));
    });
    return worker;
  });
  const settled = await Promise.allSettled(started);
  const workers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stopWorkers(workers);
    throw failed.reason;
  }
  return workers;
}

/** SIGTERM to each by its PID (a graceful stop), SIGKILL if one has not exited 20 s later. */
async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      w.child.kill('SIGTERM');
      const timer = setTimeout(() => w.child.kill('SIGKILL'), 20_000);
      await w.exited;
      clearTimeout(timer);
    }),
  );
}

/** Called on each progress report of a worker process: the running round's check. */
let onProgress: (() => void) | undefined;

function ranSoFar(workers: WorkerProcess[]): number {
  return workers.reduce((s, w) => s + w.ran, 0);
}

async function fill(bullpen: Bullpen, jobs: number): Promise<void> {
  for (const [i, type] of TYPES.entries()) {
    const count = Math.floor(jobs / TYPES.length) + (i < jobs % TYPES.length ? 1 : 0);
    for (let done = 0; done < count; done += 1_000) {
      const size = Math.min(1_000, count - done);
      await bullpen.dispatcher.dispatchBulk(Array.from({ length: size }, () => ({ type, data: QUEUES[type] })));
    }
  }
}

interface Round {
  jobsPerSec: number;
  jobs: number;
  before: Snapshot;
  after: Snapshot;
  ms: number;
  fillMs: number;
}

/** One round: fill the paused queues, resume them, time until the processes have run every job. */
async function round(bullpen: Bullpen, backend: Backend, workers: WorkerProcess[], jobs: number): Promise<Round> {
  const queues = TYPES.map((t) => bullpen.queues.get(t));
  await Promise.all(queues.map((q) => q.pause()));
  const filling = performance.now();
  await fill(bullpen, jobs);
  const fillMs = performance.now() - filling;
  const target = ranSoFar(workers) + jobs;
  const before = snapshot(backend, workers);
  const finished = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(async () => {
      onProgress = undefined;
      const counts = await Promise.all(queues.map((q) => q.getJobCounts('prioritized', 'wait', 'active', 'failed')));
      reject(new Error(`round not done in ${ROUND_TIMEOUT_MS} ms: ran ${ranSoFar(workers)} of ${target}; ${JSON.stringify(counts)}`));
    }, ROUND_TIMEOUT_MS);
    onProgress = () => {
      if (ranSoFar(workers) < target) return;
      clearTimeout(timer);
      onProgress = undefined;
      resolve();
    };
  });
  const t0 = performance.now();
  await Promise.all(queues.map((q) => q.resume()));
  await finished;
  const ms = performance.now() - t0;
  return { jobsPerSec: jobs / (ms / 1_000), jobs, before, after: snapshot(backend, workers), ms, fillMs };
}

async function runConfiguration(backend: Backend, processes: number, opts: ScaleOutOptions): Promise<ScaleOutRow> {
  const prefix = `bench-scale-${backend.nodes.length}-${processes}`;
  const bullpen = createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'info' }),
    redis: backend.target,
    prefix,
    logger: benchLogger(),
  });
  await bullpen.ready();
  // Paused before the processes start, so that no job runs before a round's clock starts.
  await Promise.all(TYPES.map((t) => bullpen.queues.get(t).pause()));
  const workers = await startWorkers(processes, backend, prefix, opts.concurrency);
  try {
    const warm = await round(bullpen, backend, workers, Math.ceil(opts.jobs / 2));
    console.log(`  ${backend.name}, ${processes} process(es): warm-up ${fmt(warm.jobsPerSec, 0)} jobs/s (not counted)`);
    const rounds: Round[] = [];
    for (let r = 0; r < opts.rounds; r++) {
      const res = await round(bullpen, backend, workers, opts.jobs);
      rounds.push(res);
      console.log(
        `  ${backend.name}, ${processes} process(es): round ${r + 1} ${fmt(res.jobsPerSec, 0)} jobs/s (filled in ${fmt(res.fillMs / 1_000, 1)} s)`,
      );
    }
    const jobs = rounds.reduce((s, r) => s + r.jobs, 0);
    const delta = (k: 'commands' | 'scripts') => rounds.reduce((s, r) => s + r.after[k] - r.before[k], 0);
    const share = (pick: (s: Snapshot) => number | undefined) =>
      rounds.every((r) => pick(r.before) !== undefined) ? median(rounds.map((r) => (pick(r.after)! - pick(r.before)!) / r.ms)) : undefined;
    return {
      backend: backend.name,
      processes,
      jobsPerSec: rounds.map((r) => r.jobsPerSec),
      scriptsPerJob: delta('scripts') / jobs,
      commandsPerJob: delta('commands') / jobs,
      redisCpu: share((s) => s.redisCpuMs),
      workerCpu: share((s) => s.workerCpuMs)!,
    };
  } finally {
    await stopWorkers(workers);
    for (const t of TYPES) await bullpen.queues.get(t).obliterate({ force: true });
    await bullpen.close();
  }
}

/** redis-benchmark's requests per second for one command line (`--csv`: the header, then `"test","rps",...`). */
function redisBenchmark(port: number, requests: number, command: string[]): number {
  const out = spawnSync(
    'redis-benchmark',
    [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-c',
      String(CEILING_CLIENTS),
      '-P',
      String(CEILING_PIPELINE),
      '-n',
      String(requests),
      '--csv',
      ...command,
    ],
    { encoding: 'utf8' },
  );
  if (out.error || out.status !== 0) {
    throw new Error(`redis-benchmark failed (install redis-tools: bash scripts/system-deps.sh test): ${out.error?.message ?? out.stderr}`);
  }
  const row = out.stdout.trim().split('\n').at(-1)!;
  const rps = Number(JSON.parse(`[${row}]`)[1]);
  if (!Number.isFinite(rps)) throw new Error(`redis-benchmark printed no rate: ${out.stdout}`);
  return rps;
}

/**
 * redis-server's own limit for script calls, on the benchmark's standalone server with
 * nothing else running on it: EVALSHA of `return 1` (the cost of a script call alone),
 * and EVALSHA of the job-shaped script (scripts/bench/finish-job-shaped.lua), median of
 * three runs each.
 */
function measureCeiling(redis: EmbeddedRedis, calls: number): ScaleOutResult['ceiling'] {
  const node = `127.0.0.1:${redis.port}`;
  const empty = cli(node, 'script', 'load', 'return 1').trim();
  const shaped = cli(node, 'script', 'load', readFileSync(path.join(__dirname, 'finish-job-shaped.lua'), 'utf8')).trim();
  const keys = ['id', 'job:', 'active', 'completed', 'events'].map((k) => `bench-ceiling:{ceiling}:${k}`);
  const runs = (requests: number, command: string[]) => median([0, 1, 2].map(() => redisBenchmark(redis.port, requests, command)));
  const emptyScript = runs(2 * calls, ['evalsha', empty, '0']);
  const before = commandStats(node);
  const jobShaped = runs(calls, ['evalsha', shaped, String(keys.length), ...keys, String(Date.now())]);
  const after = commandStats(node);
  // Commands per call as Redis counted them (the script's own and the EVALSHA itself).
  const perCall = (after.commands - before.commands) / (after.scripts - before.scripts);
  const jobs = Array.from({ length: 1_000 }, (_, i) => `bench-ceiling:{ceiling}:job:${i}`);
  for (let i = 0; i < jobs.length; i += 250) cli(node, 'del', ...jobs.slice(i, i + 250));
  cli(node, 'del', ...keys, 'bench-ceiling:{ceiling}:job:metrics');
  return { clients: CEILING_CLIENTS, pipeline: CEILING_PIPELINE, emptyScript, jobShaped, jobShapedCommands: jobShaped * perCall };
}

export async function runScaleOutBench(opts: ScaleOutOptions): Promise<ScaleOutResult> {
  const t0 = performance.now();
  const load = { start: loadavg()[0], end: 0 };
  console.log('  redis-benchmark: the EVALSHA ceiling...');
  const ceiling = measureCeiling(opts.redis, opts.ceilingCalls);
  console.log(`  EVALSHA return 1: ${fmt(ceiling.emptyScript, 0)}/s; job-shaped script: ${fmt(ceiling.jobShaped, 0)}/s`);
  const rows: ScaleOutRow[] = [];
  const single: Backend = {
    name: 'one redis-server',
    target: { host: '127.0.0.1', port: opts.redis.port },
    env: { REDIS_URL: opts.redis.url, REDIS_CLUSTER_NODES: '' },
    nodes: [`127.0.0.1:${opts.redis.port}`],
    pids: [opts.redis.child?.pid],
  };
  for (const n of opts.processes) rows.push(await runConfiguration(single, n, opts));
  const cluster = await startBenchCluster(3);
  let placement: ScaleOutResult['placement'];
  try {
    const backend: Backend = {
      name: 'three-master cluster',
      target: { clusterNodes: cluster.nodes },
      env: { REDIS_CLUSTER_NODES: cluster.nodes.join(','), REDIS_URL: '' },
      nodes: cluster.nodes,
      pids: cluster.pids,
    };
    placement = TYPES.map((type) => ({ type, master: `master ${cluster.nodes.indexOf(cluster.masterOf(`{${type}}`)) + 1}` }));
    for (const n of opts.processes) rows.push(await runConfiguration(backend, n, opts));
  } finally {
    await cluster.stop();
  }
  load.end = loadavg()[0];
  const { redis: _, ...settings } = opts;
  return { opts: settings, types: TYPES, rows, placement, ceiling, seconds: (performance.now() - t0) / 1_000, load };
}
