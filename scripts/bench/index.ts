/**
 * `npm run bench`: runs the benchmarks against a redis-server of its own on loopback and
 * rewrites docs/benchmarks.md with this run's figures. A benchmark, not a test: it
 * reports, it does not fail on a slow machine.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';
import { dashboardSection, runDashboardBench } from './dashboard';
import { durabilitySection, runDurabilityBench } from './durability';
import { runRuntimeBench, runtimeSection } from './runtime';
import { foreignSection, runForeignBench } from './foreign';
import { runScaleOutBench } from './scale-out';
import { scaleOutSection } from './scale-out-section';
import { historySection, runHistoryBench } from './history';
import { observerSection, runObserverBench } from './observer';
import { peerSection, runPeerBench } from './peer';

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
  const want = (name: string) => only.length === 0 || only.includes(name);
  const redis = await startEmbeddedRedis({ port: await freePort() });
  const sections: string[] = [];
  try {
    if (want('runtime')) {
      console.log('runtime benchmark...');
      const r = await runRuntimeBench({
        redis,
        jobs: Number(process.env.BENCH_JOBS ?? 50_000),
        rounds: Number(process.env.BENCH_ROUNDS ?? 7),
        latencySamples: 500,
      });
      sections.push(runtimeSection(r));
    }
    if (want('history')) {
      console.log('history roll-up benchmark (BULLPEN_HISTORY on vs off)...');
      sections.push(
        historySection(
          await runHistoryBench({
            redis,
            jobs: Number(process.env.BENCH_HISTORY_JOBS ?? 20_000),
            rounds: Number(process.env.BENCH_HISTORY_ROUNDS ?? 7),
          }),
        ),
      );
    }
    if (want('durability')) {
      console.log('durability benchmark (appendfsync everysec vs always)...');
      sections.push(durabilitySection(await runDurabilityBench({ jobs: Number(process.env.BENCH_FSYNC_JOBS ?? 10_000), rounds: 3 })));
    }
    if (want('foreign')) {
      console.log('dashboard beside foreign queues...');
      sections.push(foreignSection(await runForeignBench({ redis })));
    }
    if (want('scale-out')) {
      console.log('scale-out benchmark (1, 2, 4 worker processes; one redis-server and a three-master cluster)...');
      const r = await runScaleOutBench({
        redis,
        jobs: Number(process.env.BENCH_SCALE_JOBS ?? 15_000),
        rounds: Number(process.env.BENCH_SCALE_ROUNDS ?? 3),
        processes: (process.env.BENCH_SCALE_PROCESSES ?? '1,2,4').split(',').map(Number),
        concurrency: Number(process.env.BENCH_SCALE_CONCURRENCY ?? 50),
        ceilingCalls: Number(process.env.BENCH_SCALE_CEILING_CALLS ?? 100_000),
      });
      sections.push(scaleOutSection(r));
    }
    if (want('observer')) {
      console.log('observer effect: the runtime with and without dashboard clients...');
      sections.push(observerSection(await runObserverBench({ redis })));
    }
    if (want('peer')) {
      console.log('peer: the overview beside Bull Board on a million jobs...');
      sections.push(peerSection(await runPeerBench({ redis })));
    }
    if (want('dashboard')) {
      console.log('dashboard benchmark...');
      sections.push(dashboardSection(await runDashboardBench({ redis })));
    }
  } finally {
    await redis.stop();
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
