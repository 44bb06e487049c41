/**
 * The scale-out benchmark's results and the docs/benchmarks.md section made of them
 * (scripts/bench/scale-out.ts measures), and the two readings it parses: INFO
 * commandstats and /proc/<pid>/stat. Pure, so that tests/unit/bench-scale-out.test.ts
 * can check the arithmetic.
 */
import { cpus } from 'node:os';
import { fmt, median } from './stats';

/** Script-running commands, as INFO commandstats names them. */
const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/**
 * Calls of every command, and of the script-running ones, in an INFO commandstats reply.
 * Redis counts the commands a script runs under their own names too, so `commands`
 * includes them.
 */
export function parseCommandStats(info: string): { commands: number; scripts: number } {
  let commands = 0;
  let scripts = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    commands += Number(m[2]);
    if (SCRIPT_COMMANDS.has(m[1])) scripts += Number(m[2]);
  }
  return { commands, scripts };
}

/**
 * User plus system CPU time, in clock ticks, from a /proc/<pid>/stat line: fields 14 and
 * 15, counted after the process name, which sits in parentheses and may itself hold
 * spaces and parentheses.
 */
export function cpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (the state).
  return Number(fields[14 - 3]) + Number(fields[15 - 3]);
}

export interface ScaleOutRow {
  backend: string;
  processes: number;
  jobsPerSec: number[];
  /** Over the measured rounds: script calls (EVALSHA/EVAL) per job, and every command Redis counted per job. */
  scriptsPerJob: number;
  commandsPerJob: number;
  /** Median share of one core over the rounds, summed over the redis-servers / the worker processes. */
  redisCpu: number | undefined;
  workerCpu: number;
}

export interface ScaleOutResult {
  opts: { jobs: number; rounds: number; processes: number[]; concurrency: number; ceilingCalls: number };
  /** The queues every process runs (its WORKER_TYPES). */
  types: readonly string[];
  rows: ScaleOutRow[];
  /** Where each queue lives on the cluster: `master <n>`, in the order the cluster was created. */
  placement: Array<{ type: string; master: string }>;
  /** redis-benchmark's settings and rates: calls/s of the empty and the job-shaped script, commands/s of the latter. */
  ceiling: { clients: number; pipeline: number; emptyScript: number; jobShaped: number; jobShapedCommands: number };
  seconds: number;
  load: { start: number; end: number };
}

const pct = (x: number | undefined) => (x === undefined ? 'n/a' : `${fmt(100 * x, 0)} %`);

export function scaleOutSection(r: ScaleOutResult): string {
  const fewest = Math.min(...r.opts.processes);
  const base = new Map(r.rows.filter((x) => x.processes === fewest).map((x) => [x.backend, median(x.jobsPerSec)]));
  const rows = r.rows.map((x) => {
    const rate = median(x.jobsPerSec);
    const scriptsPerSec = rate * x.scriptsPerJob;
    return `| ${x.backend} | ${x.processes} | ${fmt(rate, 0)} | ${fmt(rate / base.get(x.backend)!, 2)} | ${x.jobsPerSec.map((j) => fmt(j, 0)).join(' / ')} | ${fmt(x.scriptsPerJob, 2)} | ${fmt(x.commandsPerJob, 1)} | ${pct(scriptsPerSec / r.ceiling.jobShaped)} | ${pct(x.redisCpu)} | ${pct(x.workerCpu)} |`;
  });
  const masters = new Set(r.placement.map((p) => p.master)).size;
  const perJob = r.rows[0].scriptsPerJob;
  const cores = cpus().length;
  return [
    '## Scale-out: worker processes',
    '',
    `Command: \`node --import tsx scripts/bench/index.ts scale-out\` (the section took ${fmt(r.seconds / 60, 1)} min; load average ${fmt(r.load.start, 1)} at the start, ${fmt(r.load.end, 1)} at the end).`,
    '',
    `Aggregate jobs/s of ${r.opts.processes.join(', ')} worker processes (\`scripts/bench/scale-out.ts\`), each the production composition`,
    '(`worker/main.ts`: schedules, reconciler, usage recorder, heartbeat, /metrics) with a no-op handler,',
    `\`WORKER_TYPES=${r.types.join(',')}\` and concurrency ${r.opts.concurrency} per queue, on one redis-server and on a three-master`,
    `Redis Cluster on loopback started by the benchmark. The three queues' hash tags fall on ${masters} different master(s)`,
    `(${r.placement.map((p) => `\`${p.type}\` on ${p.master}`).join(', ')}), so the cluster spreads them. A round fills the paused`,
    `queues with ${r.opts.jobs.toLocaleString('en-US')} jobs through the dispatcher (a third each, their table priorities), resumes them and stops the clock`,
    'when the processes have reported over IPC that they ran every job (no Redis polling). Per configuration the processes',
    `start once, a warm-up round of half the jobs is not counted, then ${r.opts.rounds} measured round${r.opts.rounds === 1 ? '' : 's'}; the figure is their median.`,
    '',
    `| Redis | processes | jobs/s (median) | × ${fewest === 1 ? 'one process' : `${fewest} processes`} | rounds | script calls / job | commands / job | script calls vs ceiling | redis-server CPU | workers’ CPU |`,
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'Per job, from `INFO commandstats` deltas over the measured rounds (summed over the masters on the cluster):',
    '*script calls* are EVAL/EVALSHA calls (BullMQ does its work in Lua: taking a job, finishing it and taking the next),',
    '*commands* are every command Redis counted, the ones run inside those scripts included, plus the background work',
    'of the processes during the round (heartbeats, lock renewals, stalled checks). CPU is user + system time from',
    '`/proc` over the round, as a share of one core, summed over the redis-servers and over the worker processes.',
    '',
    `**redis-server's own ceiling**, measured in this run with \`redis-benchmark -c ${r.ceiling.clients} -P ${r.ceiling.pipeline}\` on the`,
    'standalone server with no worker running (median of three runs):',
    '',
    `- \`EVALSHA\` of \`return 1\`: **${fmt(r.ceiling.emptyScript, 0)} calls/s**, the cost of a script call alone;`,
    `- \`EVALSHA\` of a script shaped like BullMQ's moveToFinished (\`scripts/bench/finish-job-shaped.lua\`: LREM from active, HSET`,
    '  the result, ZADD to completed and trim it to 100, XADD an event, HINCRBY a metric, DEL the lock; eight commands',
    `  on five keys of one hash tag): **${fmt(r.ceiling.jobShaped, 0)} calls/s** (${fmt(r.ceiling.jobShapedCommands, 0)} commands/s as commandstats counts them).`,
    '',
    `At ${fmt(perJob, 2)} script calls per job (one process on one server), the job-shaped ceiling stands for about ${fmt(r.ceiling.jobShaped / perJob, 0)} jobs/s`,
    "on one server. *Script calls vs ceiling* is jobs/s × script calls per job over the job-shaped ceiling. BullMQ's real scripts do",
    'more per call than the stand-in (see commands per job), so a figure well under 100 % can still be Redis-bound;',
    "redis-server's CPU says it directly: near 100 % of a core, the one server (or a master's share) is the limit.",
    '',
    `**What this ${cores}-core machine can and cannot show.** The worker processes, the redis-server(s) and the benchmark`,
    "itself share the same cores. A worker process with a no-op handler is CPU-bound (validation, hooks, BullMQ's",
    'bookkeeping) and redis-server runs commands on one thread, so one process and one server can already keep two cores',
    'busy: a second process adds only what the first leaves idle (mostly while it waits for Redis), and four cannot',
    `scale linearly: past ${cores} busy processes they take turns on the cores, and the ratio measures the machine, not`,
    'Bullpen. A cluster on one box adds routing in every client (a slot per command, a connection per master, more',
    'round trips where one server took a pipeline) and three servers competing for the same cores without adding any,',
    'so here it cannot be faster than one server; it',
    "shows that the processes share a cluster's queues and what the routing costs. What can be read here: whether",
    'aggregate throughput holds or collapses as processes contend for the same queues, how the Redis work per job',
    'changes with the number of processes (each adds its own heartbeats, lock renewals and stalled checks), and how far',
    'each figure is from what redis-server itself can do. On real hardware (worker processes on their own hosts, a core',
    "per master) one queue's ceiling is its master's, and each master of a cluster adds its own ceiling for the queues",
    'it holds (docs/scaling.md).',
    '',
  ].join('\n');
}
