/**
 * History benchmark: what the hourly roll-up (lib/metrics/history-recorder.ts) costs the
 * runtime. The production worker process (worker/main.ts) with a no-op handler,
 * once with BULLPEN_HISTORY on (the default) and once with it off, in the same run, on the
 * same redis-server, with the same jobs: the only difference is the roll-up's per-attempt
 * tally and its flush every 5 s. Then the roll-up's memory in Redis, measured with MEMORY USAGE.
 */
import type { Bullpen } from '@/lib/bullpen';
import { bucketOf, HISTOGRAM_BUCKETS } from '@/lib/metrics/history-buckets';
import { HISTORY_MAX_HOURS, historyKey, hourOf } from '@/lib/metrics/history-layout';
import { HistoryRecorder } from '@/lib/metrics/history-recorder';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { bullpenRunner, makeBullpen, throughput, TYPE } from './runtime';
import { type OnOffRounds, onOffRounds } from './on-off-rounds';
import { fmt, median } from './stats';

export interface HistoryBenchOptions {
  redis: EmbeddedRedis;
  jobs: number;
  rounds: number;
}

export interface HistoryBenchResult extends OnOffRounds {
  jobs: number;
  rounds: number;
  /** CPU time of one `record()` call (in-memory tallies), ns: median of 5 runs of 1,000,000 calls. */
  recordNs: number;
  /** One queue-hour as the benchmark's jobs left it: its fields and bytes. */
  measuredHour: { fields: number; bytes: number };
  /** One queue-hour with every bucket of both histograms in use: the most an hour can cost. */
  worstHourBytes: number;
}

const memoryUsage = async (bullpen: Bullpen, key: string) => Number(await bullpen.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));

export async function runHistoryBench(opts: HistoryBenchOptions): Promise<HistoryBenchResult> {
  let measuredHour = { fields: 0, bytes: 0 };
  const round = async (kind: 'on' | 'off', label: string, jobs: number) => {
    const prefix = `bench-history-${kind}-${label}`;
    const bullpen = makeBullpen(opts.redis, prefix);
    await bullpen.ready();
    const queue = bullpen.queues.get(TYPE);
    const runner = bullpenRunner(opts.redis, prefix, { BULLPEN_HISTORY: kind === 'on' ? '1' : '0' });
    // The runner's stop() flushes the recorder: every job of an "on" round is in Redis after it.
    const rate = await throughput(runner, queue, jobs);
    if (kind === 'on') {
      const key = historyKey(bullpen.keys, TYPE, hourOf(Date.now()));
      const fields = await bullpen.redis.hlen(key);
      if (fields > 0) measuredHour = { fields, bytes: await memoryUsage(bullpen, key) };
    }
    await queue.obliterate({ force: true });
    // The round's hour (or two, across an hour's end): the roll-up writes no other key.
    const hour = hourOf(Date.now());
    await bullpen.redis.del(historyKey(bullpen.keys, TYPE, hour), historyKey(bullpen.keys, TYPE, hour - 1));
    await bullpen.close();
    return rate;
  };
  // A warm-up round each, not counted (JIT, Redis's allocator, the scripts' first load).
  const rates = await onOffRounds('history', opts, round);
  return {
    jobs: opts.jobs,
    rounds: opts.rounds,
    ...rates,
    recordNs: recordCost(),
    measuredHour,
    worstHourBytes: await worstHour(opts.redis),
  };
}

/**
 * What the runtime adds to each attempt, measured alone: one `record()` (the hour, the
 * outcome, two bucket indexes), with run times and waits spread over six decades.
 */
function recordCost(): number {
  const recorder = new HistoryRecorder({ redis: undefined as never, keys: undefined as never, now: () => 1_700_000_000_000 });
  const values = Array.from({ length: 1_024 }, (_, i) => 10 ** ((i % 60) / 10));
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const n = 1_000_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) recorder.record(TYPE, i % 50 === 0 ? 'failed' : 'completed', values[i & 1023], values[(i * 7) & 1023]);
    runs.push(Number(process.hrtime.bigint() - t0) / n);
  }
  return median(runs);
}

/** Writes one queue-hour with every bucket of both histograms in use, through the recorder, and measures it. */
async function worstHour(redis: EmbeddedRedis): Promise<number> {
  const bullpen = makeBullpen(redis, 'bench-history-worst');
  await bullpen.ready();
  const now = Date.now();
  const recorder = new HistoryRecorder({ redis: bullpen.redis, keys: bullpen.keys, now: () => now });
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    const ms = 10 ** ((i - 0.5) / 10);
    if (bucketOf(ms) !== i) throw new Error(`bench: ${ms} ms is not in bucket ${i}`);
    for (let n = 0; n < 1_000; n++) recorder.record(TYPE, n % 10 === 0 ? 'failed' : 'completed', ms, ms);
  }
  await recorder.flush();
  const key = historyKey(bullpen.keys, TYPE, hourOf(now));
  const bytes = await memoryUsage(bullpen, key);
  await bullpen.redis.del(key);
  await bullpen.close();
  return bytes;
}

const kib = (bytes: number) => `${fmt(bytes / 1024, 1)} KiB`;

export function historySection(r: HistoryBenchResult): string {
  const rows = r.offJobsPerSec.map(
    (off, i) => `| ${i + 1} | ${fmt(off, 0)} | ${fmt(r.onJobsPerSec[i], 0)} | ${fmt(r.onJobsPerSec[i] / off, 3)} |`,
  );
  const loss = (1 - r.ratio) * 100;
  return [
    '## History roll-up',
    '',
    `What the hourly history costs the runtime: the production worker process (as in "Worker runtime" above, no-op`,
    `handler, concurrency 50, ${r.jobs.toLocaleString('en-US')} jobs pre-filled per round) with \`BULLPEN_HISTORY=1\` (the default) and`,
    'with `BULLPEN_HISTORY=0`. With it on, each attempt adds to in-memory tallies (its hour, outcome, run-time and',
    'wait buckets) and every 5 s the tallies go to Redis in one MULTI per queue (docs/observability.md). One warm-up',
    'round per side first, not counted; the rounds then alternate which side goes first.',
    '',
    '| round | history off jobs/s | history on jobs/s | ratio |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    `**Median ratio: ${fmt(r.ratio, 3)}**, ${loss > 0 ? `a loss of ${fmt(loss, 1)} %` : `no loss (the side with history on was ${fmt(-loss, 1)} % faster: the machine's noise)`} (target: a loss under 5 %): ${fmt(median(r.onJobsPerSec), 0)} vs ${fmt(median(r.offJobsPerSec), 0)} jobs/s.`,
    `The median of the rounds' own ratios (each round's two sides ran seconds apart): ${fmt(r.pairedRatio, 3)}.`,
    '',
    `Measured alone, the tally costs ${fmt(r.recordNs, 0)} ns of CPU per attempt (median of 5 × 1,000,000 \`record()\` calls): at`,
    `${fmt(median(r.offJobsPerSec), 0)} jobs/s, ${fmt((r.recordNs * median(r.offJobsPerSec)) / 1e7, 3)} % of one core. The flush adds one MULTI per queue every 5 s, whatever the job rate.`,
    '',
    `Memory (MEMORY USAGE): the hour these rounds wrote holds ${r.measuredHour.fields} fields in ${fmt(r.measuredHour.bytes, 0)} bytes; an hour`,
    `with every bucket of both histograms in use, ${fmt(r.worstHourBytes, 0)} bytes. A queue keeps at most ${HISTORY_MAX_HOURS} hours (31 days and`,
    `the current one): at most ${kib(r.worstHourBytes * HISTORY_MAX_HOURS)} a queue, ${kib(r.measuredHour.bytes * HISTORY_MAX_HOURS)} for one whose every hour looks like this run's.`,
    '',
  ].join('\n');
}
