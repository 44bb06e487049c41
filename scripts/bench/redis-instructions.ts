/**
 * Redis's work per job as a count (`index.ts runtime`): the redis-server runs under
 * valgrind's callgrind, which counts the instructions it executes, and each side of the
 * runtime benchmark (plain BullMQ, plain BullMQ with BullMQ's per-minute metrics, the
 * Bullpen worker process) runs the same jobs against it. Instructions are counted only
 * from the queue's resume to the last job's end, as the throughput is timed. A count does
 * not change with the machine's load, as the redis-server's CPU time does. Each side's
 * idle background (what its processes send with no job to run: heartbeats, the cancel
 * relay's read, flushes) is measured first, over IDLE_MS with the queue paused, and is
 * shown apart and taken out of the side's per-job figure: under valgrind a job takes
 * some hundred times longer than without, and the background would be counted against
 * far fewer jobs than it is in the timed rounds.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { MINUTE_POINTS } from '@/lib/metrics/history-layout';
import { type EmbeddedRedis, freePort } from '@/lib/redis/embedded-server';
import { bullpenRunner, makeBullpen, plainRunner, throughput, TYPE } from './runtime';
import { fmt, median } from './stats';

const KINDS = ['plain', 'plainMetrics', 'bullpen'] as const;
type Kind = (typeof KINDS)[number];

/** How long each side idles, counted, before its queue is resumed. */
const IDLE_MS = 5_000;

export interface SideInstructions {
  /** Instructions Redis executed per job, less the side's idle background over the same time. */
  perJob: number;
  /** Instructions per second while the side's worker was idle (its queue paused). */
  idlePerSec: number;
  /** Commands per second Redis ran for the side while idle (INFO commandstats), and its connections then. */
  idleCommandsPerSec: number;
  connections: number;
}

export interface RedisInstructions {
  jobs: number;
  rounds: number;
  sides: Record<Kind, SideInstructions>;
}

/** The instructions a callgrind dump counts: its `summary:` line (`totals:` in older valgrinds). */
export function instructionsIn(dump: string): number {
  const total = /^(?:summary|totals):\s+(\d+)\s*$/m.exec(dump);
  if (!total) throw new Error('a callgrind dump without its instruction total');
  return Number(total[1]);
}

/** Whether callgrind can be used here (valgrind installed). */
function callgrindAvailable(): boolean {
  return spawnSync('callgrind_control', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A redis-server under callgrind with instrumentation off until asked: fast enough to fill and clean queues. */
async function startCountedRedis(
  dir: string,
): Promise<{ redis: EmbeddedRedis; control: (...args: string[]) => void; dumped: () => number }> {
  const port = await freePort();
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${path.join(dir, 'callgrind.out')}`,
      'redis-server',
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    ],
    { stdio: 'ignore' },
  );
  const probe = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (err) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server under callgrind did not start: ${String(err)}`);
      probe.disconnect();
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  probe.disconnect();
  const control = (...args: string[]) => void execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
  /** Instructions in the newest dump (`callgrind.out.<n>`), written by `control('-d')`. */
  const dumped = () => {
    const parts = readdirSync(dir)
      .map((f) => /^callgrind\.out\.(\d+)$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]));
    if (parts.length === 0) throw new Error('callgrind wrote no dump');
    return instructionsIn(readFileSync(path.join(dir, parts[0][0]), 'utf8'));
  };
  const redis: EmbeddedRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  return { redis, control, dumped };
}

async function commandCalls(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(m[1]);
  return calls;
}

export async function runRedisInstructions(opts: { jobs: number; rounds: number }): Promise<RedisInstructions | undefined> {
  if (!callgrindAvailable()) {
    console.log('  redis instructions: valgrind is not installed, skipped');
    return undefined;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-callgrind-'));
  const { redis, control, dumped } = await startCountedRedis(dir);
  const admin = new Redis({ host: '127.0.0.1', port: redis.port });
  const samples = Object.fromEntries(KINDS.map((k) => [k, [] as SideInstructions[]])) as Record<Kind, SideInstructions[]>;
  try {
    const side = async (kind: Kind, label: string, jobs: number, counted: boolean) => {
      const prefix = `bench-ir-${kind}-${label}`;
      const bullpen = makeBullpen(redis, prefix);
      const queue = bullpen.queues.get(TYPE);
      const runner =
        kind === 'bullpen'
          ? bullpenRunner(redis, prefix)
          : plainRunner(bullpen, kind === 'plainMetrics' ? { metrics: { maxDataPoints: MINUTE_POINTS } } : {});
      const idle = { perSec: 0, commandsPerSec: 0, connections: 0 };
      let startedAt = 0;
      let total = 0;
      let seconds = 0;
      await throughput(
        runner,
        queue,
        jobs,
        {},
        {
          started: async () => {
            if (counted) {
              const calls = await commandCalls(admin);
              control('-i', 'on');
              control('-z');
              const t = performance.now();
              await new Promise((r) => setTimeout(r, IDLE_MS));
              control('-d', `${kind}-idle-${label}`);
              control('-i', 'off');
              const idleSeconds = (performance.now() - t) / 1_000;
              idle.perSec = dumped() / idleSeconds;
              // Less the two INFO calls of this measure itself.
              idle.commandsPerSec = ((await commandCalls(admin)) - calls - 2) / idleSeconds;
              // Less this measure's own connection.
              idle.connections = Number(/^connected_clients:(\d+)/m.exec(await admin.info('clients'))?.[1]) - 1;
            }
            control('-i', 'on');
            control('-z');
            startedAt = performance.now();
          },
          finished: async () => {
            seconds = (performance.now() - startedAt) / 1_000;
            control('-d', `${kind}-${label}`);
            control('-i', 'off');
            total = dumped();
          },
        },
      );
      await queue.obliterate({ force: true });
      await bullpen.close();
      if (counted) {
        // The background (Redis's own timers and the side's processes) runs however many
        // jobs there are: counted per second, apart.
        const background = idle.perSec * seconds;
        samples[kind].push({
          perJob: (total - background) / jobs,
          idlePerSec: idle.perSec,
          idleCommandsPerSec: idle.commandsPerSec,
          connections: idle.connections,
        });
        console.log(
          `  redis instructions ${label} ${kind.padEnd(12)} ${fmt((total - background) / jobs / 1_000, 1)}k per job, idle ${fmt(idle.perSec / 1e6, 2)}M/s, ${fmt(idle.commandsPerSec, 1)} commands/s`,
        );
      }
    };
    // Loads every script once (its first call compiles it), not counted.
    for (const kind of KINDS) await side(kind, 'warmup', 200, false);
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 === 0 ? KINDS : [...KINDS].reverse();
      for (const kind of order) await side(kind, String(r), opts.jobs, true);
    }
  } finally {
    admin.disconnect();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const pick = (kind: Kind): SideInstructions => {
    const s = samples[kind];
    return {
      perJob: median(s.map((x) => x.perJob)),
      idlePerSec: median(s.map((x) => x.idlePerSec)),
      idleCommandsPerSec: median(s.map((x) => x.idleCommandsPerSec)),
      connections: median(s.map((x) => x.connections)),
    };
  };
  return {
    jobs: opts.jobs,
    rounds: opts.rounds,
    sides: { plain: pick('plain'), plainMetrics: pick('plainMetrics'), bullpen: pick('bullpen') },
  };
}

/** The part of docs/benchmarks.md's runtime section that counts Redis's instructions per job. */
export function redisInstructionsSection(r: RedisInstructions | undefined): string {
  if (!r) return ['### Redis instructions per job', '', 'Not measured: valgrind is not installed on this machine.', ''].join('\n');
  const { plain, plainMetrics, bullpen } = r.sides;
  const row = (label: string, s: SideInstructions) =>
    `| ${label} | ${fmt(s.perJob / 1_000, 1)}k | ${fmt(s.perJob / plain.perJob, 3)} | ${fmt(s.idlePerSec / 1e6, 2)}M | ${fmt(s.idleCommandsPerSec, 1)} | ${s.connections} |`;
  return [
    '### Redis instructions per job',
    '',
    `The redis-server’s CPU time per job above differs between the sides by more than their commands do. What Redis executes,`,
    `counted rather than timed: the same jobs again, ${r.jobs.toLocaleString('en-US')} per side and ${r.rounds} rounds (medians), against a redis-server run under`,
    'valgrind’s callgrind, which counts the instructions it executes (a count the machine’s load does not change). Instructions',
    'count from the queue’s resume to the last job’s end; before it each side idles 5 s with its queue paused, counted apart',
    '(“idle”: what its processes send with no job to run; its connections include the bench’s producer). A job takes some hundred',
    'times longer under callgrind, so each side’s idle rate over the run’s length is taken out of its per-job figure; BullMQ’s',
    'per-minute metrics, which the Bullpen worker records, are shown for plain BullMQ too.',
    '',
    '| side | instructions per job | / plain | idle instructions per s | idle commands per s | connections |',
    '|---|---:|---:|---:|---:|---:|',
    row('plain BullMQ', plain),
    row('plain BullMQ with per-minute metrics', plainMetrics),
    row('Bullpen runtime', bullpen),
    '',
    `Redis does ${fmt((bullpen.perJob / plain.perJob - 1) * 100, 1)} % more per Bullpen job than per plain BullMQ job, and ${fmt((plainMetrics.perJob / plain.perJob - 1) * 100, 1)} % more`,
    `per job of plain BullMQ with the per-minute metrics. ${
      bullpen.perJob <= plainMetrics.perJob * 1.02
        ? 'The metrics are all the per-job work the Bullpen side adds to Redis;'
        : `**Bullpen adds ${fmt((bullpen.perJob / plainMetrics.perJob - 1) * 100, 1)} % beyond the metrics**: per-job work it sends that plain BullMQ does not;`
    } its background (the heartbeat, the cancel`,
    'relay’s blocking read, the history, usage and alert rounds) is a rate per second, not per job. What the CPU time per job',
    'above differs by beyond these counts is time per instruction, not work Redis was given: on this 2-core machine the',
    'redis-server shares the cores, and their caches, with the worker and whatever else runs.',
    '',
  ].join('\n');
}
