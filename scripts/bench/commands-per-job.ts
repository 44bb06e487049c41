/**
 * Redis commands per job (`index.ts runtime`): each side of the runtime benchmark runs a
 * fixed number of jobs while a MONITOR connection counts what the redis-server executes,
 * from the queue's resume to the last job's end (as the throughput is timed): each command
 * a client sent, a script call by the script's name (BullMQ's, from its package, and the
 * runtime's own LuaCommand scripts, by their SHA1), and apart from them the commands those
 * scripts ran inside Redis. MONITOR slows the server down, so this run is not timed: it
 * counts. The bytes Redis read and wrote (INFO stats) come from the same window.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { bullpenRunner, makeBullpen, plainRunner, throughput, TYPE } from './runtime';
import { fmt } from './stats';

export interface CommandCount {
  /** A client's command (`BZPOPMIN`), a script (`script moveToFinished`) or a command inside one (`in scripts HGET`). */
  name: string;
  perJob: number;
}

export interface SideCommands {
  jobs: number;
  /** Commands clients sent (scripts counted once per call), per job. */
  sent: number;
  /** Commands scripts ran inside Redis, per job. */
  inScripts: number;
  /** Bytes Redis read from and wrote to its clients, per job (INFO stats' net input and output). */
  bytesIn: number;
  bytesOut: number;
  rows: CommandCount[];
}

export type CommandsPerJob = Record<'plain' | 'bullpen', SideCommands>;

/** SHA1 of each script a client may call, by its name: BullMQ's from its package, the runtime's from their sources. */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const sha = (s: string) => createHash('sha1').update(s).digest('hex');
  const dir = path.join(path.dirname(require.resolve('bullmq/package.json')), 'dist/cjs/scripts');
  for (const file of readdirSync(dir)) {
    if (!/^[A-Za-z]+-\d+\.js$/.test(file)) continue;
    for (const value of Object.values(require(path.join(dir, file)) as Record<string, unknown>)) {
      const script = value as { name?: string; content?: string };
      if (script?.content) names.set(sha(script.content), script.name ?? file);
    }
  }
  const { LuaCommand } = await import('@/lib/redis/lua-command');
  for (const mod of ['runtime', 'schedules', 'dlq', 'redis', 'idempotency', 'webhooks', 'audit']) {
    const lua = (await import(`@/lib/${mod}/lua`)) as { LUA: Record<string, string> };
    for (const [name, source] of Object.entries(lua.LUA)) names.set(sha(new LuaCommand(name, source).source), name);
  }
  return names;
}

async function netBytes(client: Redis): Promise<{ in: number; out: number }> {
  const info = await client.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { in: field('total_net_input_bytes'), out: field('total_net_output_bytes') };
}

/** One side's jobs through `throughput`, with `around` called at the queue's resume and after the last job. */
async function runSide(
  redis: EmbeddedRedis,
  kind: 'plain' | 'bullpen',
  label: string,
  jobs: number,
  around: { started: () => Promise<void>; finished: () => Promise<void> },
): Promise<void> {
  const prefix = `bench-commands-${kind}-${label}`;
  const bullpen = makeBullpen(redis, prefix);
  const queue = bullpen.queues.get(TYPE);
  const runner = kind === 'plain' ? plainRunner(bullpen) : bullpenRunner(redis, prefix);
  await throughput(runner, queue, jobs, {}, around);
  await queue.obliterate({ force: true });
  await bullpen.close();
}

async function countSide(redis: EmbeddedRedis, kind: 'plain' | 'bullpen', jobs: number, names: Map<string, string>): Promise<SideCommands> {
  const stats = new Redis({ host: '127.0.0.1', port: redis.port, lazyConnect: true });
  await stats.connect();
  // Bytes first, without MONITOR: what MONITOR is sent counts as Redis's output too.
  const at = { in: 0, out: 0 };
  const end = { in: 0, out: 0 };
  await runSide(redis, kind, 'bytes', jobs, {
    started: async () => void Object.assign(at, await netBytes(stats)),
    finished: async () => void Object.assign(end, await netBytes(stats)),
  });
  const counts = new Map<string, number>();
  const monitor = await stats.duplicate().monitor();
  let counting = false;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (!counting) return;
    const command = String(args[0]).toUpperCase();
    let name: string;
    if (source === 'lua') name = `in scripts ${command}`;
    else if (command === 'EVALSHA') name = `script ${names.get(String(args[1])) ?? String(args[1]).slice(0, 8)}`;
    else if (command === 'EVAL') name = `script ${names.get(createHash('sha1').update(String(args[1])).digest('hex')) ?? '(inline)'}`;
    else name = command;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  });
  await runSide(redis, kind, 'monitor', jobs, {
    started: async () => {
      counting = true;
    },
    finished: async () => {
      counting = false;
    },
  });
  monitor.disconnect();
  stats.disconnect();
  const rows = [...counts].map(([name, n]) => ({ name, perJob: n / jobs })).sort((a, b) => b.perJob - a.perJob);
  const sum = (inScripts: boolean) => rows.filter((r) => r.name.startsWith('in scripts ') === inScripts).reduce((s, r) => s + r.perJob, 0);
  return { jobs, sent: sum(false), inScripts: sum(true), bytesIn: (end.in - at.in) / jobs, bytesOut: (end.out - at.out) / jobs, rows };
}

export async function runCommandsPerJob(redis: EmbeddedRedis, jobs: number): Promise<CommandsPerJob> {
  const names = await scriptNames();
  const plain = await countSide(redis, 'plain', jobs, names);
  const bullpen = await countSide(redis, 'bullpen', jobs, names);
  for (const [kind, side] of Object.entries({ plain, bullpen })) {
    console.log(
      `  commands per job ${kind.padEnd(7)} ${fmt(side.sent, 2)} sent, ${fmt(side.inScripts, 1)} in scripts, ${fmt(side.bytesIn, 0)} B in, ${fmt(side.bytesOut, 0)} B out`,
    );
  }
  return { plain, bullpen };
}

/** Rows either side has at 0.005 per job or more; commands inside scripts only where the sides differ by 0.01. */
function commandsTable(c: CommandsPerJob): string[] {
  const names = [...new Set([...c.plain.rows, ...c.bullpen.rows].map((r) => r.name))];
  const per = (side: SideCommands, name: string) => side.rows.find((r) => r.name === name)?.perJob ?? 0;
  const inScripts = (n: string) => n.startsWith('in scripts ');
  const shown = names
    .filter((n) =>
      inScripts(n) ? Math.abs(per(c.bullpen, n) - per(c.plain, n)) >= 0.01 : per(c.plain, n) >= 0.005 || per(c.bullpen, n) >= 0.005,
    )
    .sort((a, b) => per(c.bullpen, b) - per(c.plain, b) - (per(c.bullpen, a) - per(c.plain, a)) || a.localeCompare(b));
  // A difference that rounds to zero is written 0, not -0.00.
  const diff = (d: number, digits: number) => fmt(Math.abs(d) < 0.5 * 10 ** -digits ? 0 : d, digits);
  const row = (label: string, p: number, b: number, digits = 2) =>
    `| ${label} | ${fmt(p, digits)} | ${fmt(b, digits)} | ${diff(b - p, digits)} |`;
  return [
    '| per job | plain BullMQ | Bullpen | Bullpen − plain |',
    '|---|---:|---:|---:|',
    ...shown.filter((n) => !inScripts(n)).map((n) => row(`\`${n}\``, per(c.plain, n), per(c.bullpen, n))),
    row('**commands sent (a script call is one)**', c.plain.sent, c.bullpen.sent),
    ...shown.filter(inScripts).map((n) => row(`\`${n.replace('in scripts ', '')}\` inside a script`, per(c.plain, n), per(c.bullpen, n))),
    row('**commands run inside scripts** (all of them)', c.plain.inScripts, c.bullpen.inScripts),
    row('bytes Redis read (what the worker sent)', c.plain.bytesIn, c.bullpen.bytesIn, 0),
    row('bytes Redis wrote (what the worker received)', c.plain.bytesOut, c.bullpen.bytesOut, 0),
  ];
}

/** The part of docs/benchmarks.md's runtime section that counts Redis's work per job. */
export function commandsSection(c: CommandsPerJob): string {
  return [
    '### Redis commands per job',
    '',
    `Each side again, ${c.plain.jobs.toLocaleString('en-US')} jobs, the same worker, options and jobs as the rounds above, while a MONITOR`,
    'connection counts what the redis-server runs from the queue’s resume to the last job’s end: each command a client',
    'sent (a script call by its script’s name, BullMQ’s or the runtime’s), and apart from them the commands those',
    'scripts ran inside Redis. MONITOR slows Redis, so that run is not timed; the bytes come from a run of the same size',
    'without it (INFO stats’ net input and output). Commands inside scripts are listed where the sides differ.',
    '',
    ...commandsTable(c),
    '',
    'Both sides take and finish each job in one script call (`moveToFinished` finishes a job and fetches the next;',
    '`moveToActive` runs when a worker’s fetch finds none waiting). What Bullpen adds inside `moveToFinished` is',
    'BullMQ’s per-minute metrics (`metrics: { maxDataPoints }`, one `HINCRBY` and one `HGET` a job), which the',
    'dashboard’s charts read; the rest of its Redis work is per interval (the heartbeat every 5 s, the history and usage',
    'flushes, the attempt record of jobs that failed or retried), under 0.01 of a command per job here.',
    '',
  ].join('\n');
}
