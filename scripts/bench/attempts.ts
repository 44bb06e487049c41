/**
 * Attempt-record benchmark: what recording each attempt (lib/runtime/attempt-log.ts) costs.
 * The production worker process with a no-op handler (as the history benchmark runs it),
 * once with BULLPEN_ATTEMPT_RECORD on (the default) and once off, in the same run, on the
 * same redis-server, with the same jobs. Then the record's memory per attempt, measured
 * with MEMORY USAGE on dispatched jobs' hashes before and after their entries are written.
 */
import type { Job } from 'bullmq';
import type { Bullpen } from '@/lib/bullpen';
import { classifyError } from '@/lib/errors/classify';
import { HttpError } from '@/lib/errors/http-error';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { AttemptLog } from '@/lib/runtime/attempt-log';
import { ATTEMPT_ENTRY_MAX_BYTES, ATTEMPT_RECORD_MAX_ENTRIES } from '@/lib/runtime/attempt-record';
import { bullpenRunner, makeBullpen, throughput, TYPE } from './runtime';
import { type OnOffRounds, onOffRounds } from './on-off-rounds';
import { fmt, median } from './stats';

export interface AttemptsBenchOptions {
  redis: EmbeddedRedis;
  jobs: number;
  rounds: number;
}

export interface AttemptsBenchResult extends OnOffRounds {
  jobs: number;
  rounds: number;
  memory: AttemptMemory;
}

interface AttemptMemory {
  /** Jobs measured. */
  jobs: number;
  /** Mean MEMORY USAGE of a job's hash with no record. */
  bareBytes: number;
  /** Mean bytes a job that completed at its first attempt gains: none, no entry is written for it. */
  onlyBytes: number;
  /** Mean bytes the first entry (a retried attempt with a 503's message) adds: the field and one line. */
  firstBytes: number;
  /** Mean bytes each further entry (a retried attempt, then the completed one) adds. */
  nextBytes: number;
  /** Mean bytes of a record holding the most entries, each of the most bytes. */
  fullBytes: number;
}

const memoryUsage = async (bullpen: Bullpen, key: string) => Number(await bullpen.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));

export async function runAttemptsBench(opts: AttemptsBenchOptions): Promise<AttemptsBenchResult> {
  const round = async (kind: 'on' | 'off', label: string, jobs: number) => {
    const prefix = `bench-attempts-${kind}-${label}`;
    const bullpen = makeBullpen(opts.redis, prefix);
    await bullpen.ready();
    const queue = bullpen.queues.get(TYPE);
    const runner = bullpenRunner(opts.redis, prefix, { BULLPEN_ATTEMPT_RECORD: kind === 'on' ? '1' : '0' });
    // The runner's stop() flushes the record: every entry of an "on" round is written (or skipped, its job gone) by then.
    const rate = await throughput(runner, queue, jobs);
    await queue.obliterate({ force: true });
    await bullpen.close();
    return rate;
  };
  const rates = await onOffRounds('attempts', opts, round);
  return {
    jobs: opts.jobs,
    rounds: opts.rounds,
    ...rates,
    memory: await attemptMemory(opts.redis, 200),
  };
}

/**
 * Dispatched jobs (the type's own envelope and options), their hashes measured bare, then
 * after one completed entry, after two retried ones more, and with a full record: the
 * entries go through the runtime's own writer, as a worker's hooks and events hand them in.
 */
async function attemptMemory(redis: EmbeddedRedis, n: number): Promise<AttemptMemory> {
  const bullpen = makeBullpen(redis, 'bench-attempts-memory');
  await bullpen.ready();
  const queue = bullpen.queues.get(TYPE);
  const log = new AttemptLog({ redis: bullpen.redis, worker: 'bullpen:bench-host:12345', flushIntervalMs: 60_000 });
  const hooks = log.hooks();
  const jobs: Job[] = [];
  for (let i = 0; i < n; i++) {
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, { webhookId: 'bench', event: 'order.created', payload: { orderId: i } });
    jobs.push((await queue.getJob(jobId)) as Job);
  }
  const total = async () => {
    let sum = 0;
    for (const job of jobs) sum += await memoryUsage(bullpen, queue.toKey(String(job.id)));
    return sum / n;
  };
  const attempt = (job: Job, k: number, error?: Error) => {
    const ctx = { jobId: String(job.id), type: TYPE, attempt: k };
    hooks.onStart?.(ctx);
    if (error) {
      hooks.onFailed?.({ ...ctx, durationMs: 1_234.5, error, classification: classifyError(error), final: false });
      log.failed(TYPE, Object.assign(job, { delay: 1_800 }), error);
    } else {
      hooks.onComplete?.({ ...ctx, durationMs: 12.3, result: undefined });
      log.completed(TYPE, job);
    }
  };
  const bareBytes = await total();
  // A first attempt that completes is not written (BullMQ's fields say it): no bytes, nothing to measure.
  for (const job of jobs) attempt(job, 1);
  await log.flush();
  const onlyBytes = (await total()) - bareBytes;
  const upstream = new HttpError(503, 'upstream answered 503 Service Unavailable: try again later');
  for (const job of jobs) attempt(job, 1, upstream);
  await log.flush();
  const oneBytes = await total();
  for (const job of jobs) attempt(job, 2, upstream);
  for (const job of jobs) attempt(job, 3);
  await log.flush();
  const threeBytes = await total();
  // The most a record holds: 25 entries of 1 KiB each (a message cut to fit).
  const long = new HttpError(503, '\u0007'.repeat(5_000));
  for (let k = 4; k < 4 + ATTEMPT_RECORD_MAX_ENTRIES; k++) for (const job of jobs) attempt(job, k, long);
  await log.flush();
  const fullBytes = (await total()) - bareBytes;
  await log.stop();
  await queue.obliterate({ force: true });
  await bullpen.close();
  return { jobs: n, bareBytes, onlyBytes, firstBytes: oneBytes - bareBytes, nextBytes: (threeBytes - oneBytes) / 2, fullBytes };
}

export function attemptsSection(r: AttemptsBenchResult): string {
  const rows = r.offJobsPerSec.map(
    (off, i) => `| ${i + 1} | ${fmt(off, 0)} | ${fmt(r.onJobsPerSec[i], 0)} | ${fmt(r.onJobsPerSec[i] / off, 3)} |`,
  );
  const loss = (1 - r.ratio) * 100;
  const m = r.memory;
  return [
    '## Attempt record',
    '',
    'What recording each attempt costs the runtime (docs/architecture.md#the-attempt-record): the production worker',
    `process (as in "Worker runtime" above, no-op handler, concurrency 50, ${r.jobs.toLocaleString('en-US')} jobs pre-filled per round)`,
    'with `BULLPEN_ATTEMPT_RECORD=1` (the default) and with `BULLPEN_ATTEMPT_RECORD=0`. With it on, each attempt is',
    "noted by the processor's hooks and BullMQ's completed and failed events, and every 100 ms the entries go to Redis",
    "in one Lua call per queue, each into its job's hash if the job is still there. A job that completes at its first",
    'attempt, as every job here does, gets no entry: what it would say is in BullMQ’s own fields (processedOn,',
    'finishedOn, processedBy), so these rounds measure the hooks alone. One warm-up round per side first, not',
    'counted; the rounds then alternate which side goes first.',
    '',
    '| round | record off jobs/s | record on jobs/s | ratio |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    `**Median ratio: ${fmt(r.ratio, 3)}**, ${loss > 0 ? `a loss of ${fmt(loss, 1)} %` : `no loss (the side with the record on was ${fmt(-loss, 1)} % faster: the machine's noise)`}: ${fmt(median(r.onJobsPerSec), 0)} vs ${fmt(median(r.offJobsPerSec), 0)} jobs/s.`,
    `The median of the rounds' own ratios (each round's two sides ran seconds apart): ${fmt(r.pairedRatio, 3)}.`,
    '',
    `Memory (MEMORY USAGE of ${m.jobs} dispatched ${TYPE} jobs' hashes, the mean per job): a job with no record takes`,
    `${fmt(m.bareBytes, 0)} bytes, and one that completed at its first attempt gains ${fmt(m.onlyBytes, 0)} (no entry is written for it: the job page`,
    "reads that attempt from BullMQ's own fields). A first entry (a retried attempt with a 503's class, message and backoff) adds",
    `${fmt(m.firstBytes, 0)} bytes, the field's name included; each further entry (another retried attempt, then the completed one) adds ${fmt(m.nextBytes, 0)} bytes.`,
    `A full record (${ATTEMPT_RECORD_MAX_ENTRIES} entries of at most ${fmt(ATTEMPT_ENTRY_MAX_BYTES, 0)} bytes, and the dropped count) adds ${fmt(m.fullBytes, 0)} bytes: the most`,
    'a job can carry.',
    '',
  ].join('\n');
}
