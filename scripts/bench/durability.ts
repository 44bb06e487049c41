/**
 * What `BULLPEN_REDIS_FSYNC=always` costs: the Bullpen runtime's throughput on two
 * persistent redis-servers of the benchmark's own (AOF on, data in temp dirs), one with
 * `appendfsync everysec` (the embedded default) and one with `always`, in alternating
 * rounds of the same run (docs/observability.md, "Redis restarts").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { bullpenRunner, makeBullpen, throughput } from './runtime';
import { fmt, median } from './stats';

type Fsync = 'everysec' | 'always';

export interface DurabilityBenchResult {
  jobs: number;
  rounds: number;
  jobsPerSec: Record<Fsync, number[]>;
  /** median(always) / median(everysec). */
  ratio: number;
}

export async function runDurabilityBench(opts: { jobs: number; rounds: number }): Promise<DurabilityBenchResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-bench-fsync-'));
  const servers = {} as Record<Fsync, EmbeddedRedis>;
  const jobsPerSec: Record<Fsync, number[]> = { everysec: [], always: [] };
  try {
    for (const fsync of ['everysec', 'always'] as const) {
      servers[fsync] = await startEmbeddedRedis({ port: await freePort(), dir: path.join(dir, fsync), fsync });
    }
    for (let round = 0; round < opts.rounds; round++) {
      const order: Fsync[] = round % 2 === 0 ? ['everysec', 'always'] : ['always', 'everysec'];
      for (const fsync of order) {
        const bullpen = makeBullpen(servers[fsync], `bench-fsync-${round}`);
        const queue = bullpen.queues.get('webhook-dispatch');
        const rate = await throughput(bullpenRunner(servers[fsync], `bench-fsync-${round}`), queue, opts.jobs);
        jobsPerSec[fsync].push(rate);
        console.log(`  round ${round + 1} appendfsync ${fsync.padEnd(8)} ${fmt(rate, 0)} jobs/s`);
        await queue.obliterate({ force: true });
        await bullpen.close();
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  return { jobs: opts.jobs, rounds: opts.rounds, jobsPerSec, ratio: median(jobsPerSec.always) / median(jobsPerSec.everysec) };
}

export function durabilitySection(r: DurabilityBenchResult): string {
  return [
    '## Durability: appendfsync everysec vs always',
    '',
    `The production worker process (no-op handler, concurrency 50, ${r.jobs.toLocaleString('en-US')} jobs per round) on two persistent`,
    'redis-servers with AOF on, one per policy, alternating which goes first. `everysec` is the embedded default',
    '(a crash can lose about a second of writes); `BULLPEN_REDIS_FSYNC=always` fsyncs every write and loses none.',
    '',
    '| round | everysec jobs/s | always jobs/s |',
    '|---|---:|---:|',
    ...r.jobsPerSec.everysec.map((e, i) => `| ${i + 1} | ${fmt(e, 0)} | ${fmt(r.jobsPerSec.always[i], 0)} |`),
    '',
    `**Median always / everysec: ${fmt(r.ratio, 2)}** (${fmt(median(r.jobsPerSec.always), 0)} vs ${fmt(median(r.jobsPerSec.everysec), 0)} jobs/s). The cost depends`,
    'on the disk: this machine’s virtual disk absorbs fsyncs quickly; a networked volume pays far more per write.',
    '',
  ].join('\n');
}
