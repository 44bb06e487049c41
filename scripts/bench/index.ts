/**
 * `npm run bench`: runs the benchmarks against a redis-server of its own on loopback and
 * rewrites docs/benchmarks.md with this run's figures. A benchmark, not a test: it
 * reports, it does not fail on a slow machine.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { type EmbeddedRedis, freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';
import { dashboardSection, runDashboardBench } from './dashboard';
import { durabilitySection, runDurabilityBench } from './durability';
import { runRuntimeBench, runtimeSection } from './runtime';
import { commandsSection, runCommandsPerJob } from './commands-per-job';
import { redisInstructionsSection, runRedisInstructions } from './redis-instructions';
import { foreignSection, runForeignBench } from './foreign';
import { runScaleOutBench } from './scale-out';
import { scaleOutSection } from './scale-out-section';
import { historySection, runHistoryBench } from './history';
import { attemptsSection, runAttemptsBench } from './attempts';
import { observerSection, runObserverBench } from './observer';
import { peerSection, runPeerBench } from './peer';
import { withMachineLoad } from './machine-load';
import { runRuntimeProfile, runtimeProfileSection } from './runtime-profile';
import { envInt } from './stats';

/** The `## ` heading line a section starts with. */
const heading = (section: string) => section.split('\n', 1)[0].trim();

/**
 * This run's sections in place of the same sections of the existing file; sections
 * not run this time (`index.ts dashboard` skips the runtime) are kept as they were.
 */
function mergeSections(existing: string, fresh: string[]): string[] {
  const previous = existing.split(/^(?=## )/m).slice(1);
  const byHeading = new Map(fresh.map((s) => [heading(s), s]));
  const merged = previous.map((s) => byHeading.get(heading(s)) ?? s);
  for (const s of fresh) if (!previous.some((p) => heading(p) === heading(s))) merged.push(s);
  return merged.map((s) => `${s.trimEnd()}\n`);
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  // Started once the section names are checked; every section uses it.
  let embedded: EmbeddedRedis | undefined;
  const redis = () => embedded as EmbeddedRedis;
  // Each section on its own: `index.ts runtime` runs that one alone and keeps the others' text.
  const all: Array<{ name: string; says: string; run: () => Promise<string> }> = [
    {
      name: 'runtime',
      says: 'runtime benchmark...',
      run: async () => {
        const rounds = await runRuntimeBench({
          redis: redis(),
          jobs: envInt('BENCH_JOBS', 50_000),
          rounds: envInt('BENCH_ROUNDS', 7),
          latencySamples: 500,
        });
        const commands = await runCommandsPerJob(redis(), envInt('BENCH_COMMANDS_JOBS', 5_000));
        const instructions = await runRedisInstructions({
          jobs: envInt('BENCH_REDIS_IR_JOBS', 2_000),
          rounds: envInt('BENCH_REDIS_IR_ROUNDS', 2),
        });
        return `${runtimeSection(rounds)}\n${commandsSection(commands)}\n${redisInstructionsSection(instructions)}`;
      },
    },
    {
      name: 'profile',
      says: 'runtime profile (node --cpu-prof of the worker process)...',
      run: async () =>
        runtimeProfileSection(
          await runRuntimeProfile({
            redis: redis(),
            jobs: envInt('BENCH_PROFILE_JOBS', 50_000),
            rounds: envInt('BENCH_PROFILE_ROUNDS', 3),
          }),
        ),
    },
    {
      name: 'history',
      says: 'history roll-up benchmark (BULLPEN_HISTORY on vs off)...',
      run: async () =>
        historySection(
          await runHistoryBench({ redis: redis(), jobs: envInt('BENCH_HISTORY_JOBS', 20_000), rounds: envInt('BENCH_HISTORY_ROUNDS', 7) }),
        ),
    },
    {
      name: 'attempts',
      says: 'attempt record benchmark (BULLPEN_ATTEMPT_RECORD on vs off)...',
      run: async () =>
        attemptsSection(
          await runAttemptsBench({
            redis: redis(),
            jobs: envInt('BENCH_ATTEMPTS_JOBS', 20_000),
            rounds: envInt('BENCH_ATTEMPTS_ROUNDS', 7),
          }),
        ),
    },
    {
      name: 'durability',
      says: 'durability benchmark (appendfsync everysec vs always)...',
      run: async () => durabilitySection(await runDurabilityBench({ jobs: envInt('BENCH_FSYNC_JOBS', 10_000), rounds: 3 })),
    },
    {
      name: 'foreign',
      says: 'dashboard beside foreign queues...',
      run: async () => foreignSection(await runForeignBench({ redis: redis() })),
    },
    {
      name: 'scale-out',
      says: 'scale-out benchmark (1, 2, 4 worker processes; one redis-server and a three-master cluster)...',
      run: async () =>
        scaleOutSection(
          await runScaleOutBench({
            redis: redis(),
            jobs: envInt('BENCH_SCALE_JOBS', 15_000),
            rounds: envInt('BENCH_SCALE_ROUNDS', 3),
            processes: (process.env.BENCH_SCALE_PROCESSES ?? '1,2,4').split(',').map(Number),
            concurrency: envInt('BENCH_SCALE_CONCURRENCY', 50),
            ceilingCalls: envInt('BENCH_SCALE_CEILING_CALLS', 100_000),
          }),
        ),
    },
    {
      name: 'observer',
      says: 'observer effect: the runtime with and without dashboard clients...',
      run: async () => observerSection(await runObserverBench({ redis: redis() })),
    },
    {
      name: 'peer',
      says: 'peer: the overview beside Bull Board on a million jobs...',
      run: async () => peerSection(await runPeerBench({ redis: redis() })),
    },
    { name: 'dashboard', says: 'dashboard benchmark...', run: async () => dashboardSection(await runDashboardBench({ redis: redis() })) },
  ];
  const unknown = only.filter((name) => !all.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new Error(`Unknown section(s) ${unknown.join(', ')}; the sections are ${all.map((s) => s.name).join(', ')}`);
  }
  embedded = await startEmbeddedRedis({ port: await freePort() });
  const sections: string[] = [];
  try {
    for (const section of all) {
      if (only.length > 0 && !only.includes(section.name)) continue;
      console.log(section.says);
      sections.push(await withMachineLoad(section.name, section.run));
    }
  } finally {
    await redis().stop();
  }
  const header = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model.trim()}),`,
    `Node ${process.versions.node}, a redis-server of the benchmark's own on loopback without persistence.`,
    'Shared machines are noisy: compare the ratios and medians of one run, not absolute figures across runs.',
    '',
  ].join('\n');
  const file = path.resolve(__dirname, '../../docs/benchmarks.md');
  const kept = existsSync(file) ? mergeSections(readFileSync(file, 'utf8'), sections) : sections;
  writeFileSync(file, `${header}\n${kept.join('\n')}`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
