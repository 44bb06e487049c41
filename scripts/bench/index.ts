/**
 * `npm run bench`: runs the benchmarks against a redis-server of its own on loopback and
 * rewrites docs/benchmarks.md with this run's figures. A benchmark, not a test: it
 * reports, it does not fail on a slow machine.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';
import { runRuntimeBench, runtimeSection } from './runtime';

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const want = (name: string) => only.length === 0 || only.includes(name);
  const redis = await startEmbeddedRedis({ port: await freePort() });
  const sections: string[] = [];
  try {
    if (want('runtime')) {
      console.log('runtime benchmark...');
      const r = await runRuntimeBench({ redis, jobs: Number(process.env.BENCH_JOBS ?? 20_000), rounds: 3, latencySamples: 500 });
      sections.push(runtimeSection(r));
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
  writeFileSync(file, `${header}\n${sections.join('\n')}`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
