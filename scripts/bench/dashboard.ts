/**
 * Dashboard benchmark (issue 3): a million completed jobs in one queue and 100,000
 * dead letters; the median server time of the overview, the first and a deep page of
 * the queue and a filtered dead-letter page — (a) as read models in this process and
 * (b) as real pages from `next start` — and "retry all" on 10k/50k/100k failed jobs
 * with its time and peak memory (and 100k again under a 32 MiB heap cap). Run alone: `node --import tsx scripts/bench/index.ts dashboard`.
 * Smaller trial runs: BENCH_DASHBOARD_JOBS, BENCH_DASHBOARD_DEAD_LETTERS and
 * BENCH_DASHBOARD_RETRY (comma-separated sizes); BENCH_NO_BUILD=1 keeps a stale build.
 */
import { loadavg } from 'node:os';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { shippedApp } from '@/jobs/shipped-app';
import { loadConfig } from '@/lib/config';
import { readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { ERROR_CLASSES } from '@/lib/errors/classify';
import { SHIPPED_JOB_NAMES } from '@/jobs';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import type { EmbeddedRedis } from '@/lib/redis/embedded-server';
import { runHttp, type HttpTiming, type PageProbe } from './dashboard-http';
import { firstPaints } from './dashboard-paint';
import { pageWeight } from './page-weight';
import { ensureBuild, startDashboard, type RunningDashboard } from './dashboard-next';
import { runReads } from './dashboard-reads';
import { fmt, median } from './stats';
import { runRetryAll } from './dashboard-retry';
import { type DashboardBenchResult, type PageKey, WEIGHED_PAGES } from './dashboard-section';
import { seededRandom } from '@/jobs/shared/seeded-random';
import { cloneJobs, makeTemplate, recordDeadLetters, spreadDeadLetter, verifyClones } from './dashboard-seed';

export { dashboardSection, type DashboardBenchResult } from './dashboard-section';

const QUEUE = 'webhook-dispatch' as const;
const RETRY_QUEUE = 'slack-sync' as const;
const PREFIX = 'bench-dash';
const PAGE_SIZE = 50;
const DLQ_TENANTS = 50;
/** Old-space cap of the proof run: the uncapped runs peak near 45 MiB of heap, of which ~19 is the baseline. */
const HEAP_CAP_MIB = 32;
/** The filter of the dead-letter page: the commonest type and error class, so the intersections are the largest. */
const DLQ_FILTER = { type: 'webhook-dispatch', errorClass: ERROR_CLASSES[0] };

export interface DashboardBenchOptions {
  redis: EmbeddedRedis;
  /** Completed jobs in the queue. @defaultValue BENCH_DASHBOARD_JOBS or 1000000 */
  jobs?: number;
  /** Dead letters. @defaultValue BENCH_DASHBOARD_DEAD_LETTERS or 100000 */
  deadLetters?: number;
  /** Failed-set sizes "retry all" runs on. @defaultValue BENCH_DASHBOARD_RETRY or [10000, 50000, 100000] */
  retrySizes?: number[];
  /** Timed repetitions of each read model. @defaultValue 15 */
  reps?: number;
  /** Timed HTTP rounds. @defaultValue 10 */
  httpReps?: number;
  /** The deep page's number. @defaultValue 10000, or the last page of fewer jobs */
  deepPage?: number;
}

/** A positive integer from the environment (smaller trial runs), or undefined when unset. */
function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function commandLine(): string {
  const args = process.argv.slice(2);
  return args.length ? `node --import tsx scripts/bench/index.ts ${args.join(' ')}` : 'npm run bench';
}

async function redisMemory(bullpen: Bullpen): Promise<string> {
  const info = await bullpen.redis.info('memory');
  return /used_memory_human:(\S+)/.exec(info)?.[1] ?? 'unknown';
}

/** How many cold browsers each page's first paint is taken from. */
const PAINT_SAMPLES = 5;

/**
 * The overview's and the first queue page's weight (what fills the HTML) and first
 * contentful paint from a cold browser. A browser that cannot start leaves the paints out
 * and says why; the weights are still taken.
 */
async function measurePages(d: RunningDashboard, probes: PageProbe[]): Promise<NonNullable<DashboardBenchResult['http']['pages']>> {
  const out: NonNullable<DashboardBenchResult['http']['pages']> = {};
  for (const key of WEIGHED_PAGES) {
    const path = probes.find((p) => p.key === key)?.path(0) as string;
    const res = await fetch(`${d.url}${path}`, { headers: { cookie: d.cookie, accept: 'text/html' } });
    const weight = pageWeight(await res.text());
    try {
      const paints = await firstPaints(d, path, PAINT_SAMPLES);
      out[key] = { path, weight, paints };
    } catch (err) {
      out[key] = { path, weight, paints: [], paintError: (err as Error).message.split('\n')[0] };
    }
    console.log(`  ${key}: ${fmt(weight.bytes / 1_024, 1)} KiB, ${fmt(weight.gzipBytes / 1_024, 1)} KiB gzipped`);
  }
  return out;
}

/** The real pages, checked against what the read models returned for the same URLs. */
async function measureHttp(
  bullpen: Bullpen,
  redis: EmbeddedRedis,
  probes: PageProbe[],
  reps: number,
): Promise<DashboardBenchResult['http']> {
  const build = await ensureBuild();
  if (build.unusable) return { build };
  let dashboard: RunningDashboard;
  try {
    dashboard = await startDashboard(bullpen, redis.url);
  } catch (err) {
    return { build, error: `next start failed: ${(err as Error).message.split('\n')[0]}` };
  }
  try {
    const timings = (await runHttp(dashboard, probes, reps)) as Record<PageKey, HttpTiming>;
    return { build, timings, pages: await measurePages(dashboard, probes) };
  } catch (err) {
    console.error(dashboard.log().slice(-2_000));
    return { build, error: (err as Error).message };
  } finally {
    await dashboard.stop();
  }
}

export async function runDashboardBench(opts: DashboardBenchOptions): Promise<DashboardBenchResult> {
  const jobs = opts.jobs ?? envInt('BENCH_DASHBOARD_JOBS') ?? 1_000_000;
  const deadLetters = opts.deadLetters ?? envInt('BENCH_DASHBOARD_DEAD_LETTERS') ?? 100_000;
  const retrySizes = opts.retrySizes ?? process.env.BENCH_DASHBOARD_RETRY?.split(',').map(Number) ?? [10_000, 50_000, 100_000];
  const reps = opts.reps ?? 15;
  const httpReps = opts.httpReps ?? 10;
  const deepPage = opts.deepPage ?? Math.min(10_000, Math.floor(jobs / PAGE_SIZE));
  if (deepPage < 1 || deepPage * PAGE_SIZE > jobs) throw new Error(`page ${deepPage} of ${PAGE_SIZE} needs more than ${jobs} jobs`);
  if (retrySizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`retry-all sizes must be positive integers, got ${retrySizes.join(',')}`);
  const started = performance.now();
  const loadStart = loadavg()[0];
  const bullpen = createBullpen({
    ...shippedApp,
    config: loadConfig({ LOG_LEVEL: 'warn' }),
    redis: { host: '127.0.0.1', port: opts.redis.port },
    prefix: PREFIX,
    logger: silentLogger,
  });
  try {
    await readyClient(bullpen.redis);
    const completed = await makeTemplate(
      bullpen,
      QUEUE,
      { webhookId: 'wh-bench', event: 'order.created', payload: { orderId: 'o-1', total: 42 } },
      false,
    );
    const failed = await makeTemplate(bullpen, RETRY_QUEUE, { channelId: 'C0BENCH01' }, true);

    const spec = { firstId: 1, count: jobs, tenants: DLQ_TENANTS };
    const cloned = await cloneJobs(bullpen, completed, spec);
    await verifyClones(bullpen, completed, spec, jobs);
    console.log(`  seeded ${jobs.toLocaleString('en-US')} completed jobs in ${(cloned.ms / 1_000).toFixed(1)} s`);
    const rnd = seededRandom(3);
    const now = Date.now();
    const dlqMs = await recordDeadLetters(bullpen, deadLetters, (i) =>
      spreadDeadLetter(i, rnd, { tenants: DLQ_TENANTS, windowMs: 7 * 24 * 3_600_000, now }),
    );
    const dlqTotal = (await bullpen.dlq.counts()).total;
    if (dlqTotal !== deadLetters) throw new Error(`the DLQ holds ${dlqTotal} entries, expected ${deadLetters}`);
    console.log(`  recorded ${deadLetters.toLocaleString('en-US')} dead letters in ${(dlqMs / 1_000).toFixed(1)} s`);
    const seed = { jobsMs: cloned.ms, deadLettersMs: dlqMs, redisMemory: await redisMemory(bullpen) };

    // org-0 (the commonest) is the warm filter. Cold reads each need a tenant no other read has
    // touched (or they would find its intersection cached): the read models take org-1, org-3, …
    // and the HTTP rounds org-2, org-4, …, so both see tenants of the same sizes.
    const pairs = Math.max(reps, httpReps + 1);
    if (2 * pairs + 1 > DLQ_TENANTS) throw new Error(`${reps} and ${httpReps} repetitions need more than ${DLQ_TENANTS} tenants`);
    const coldFor = (first: number) => Array.from({ length: pairs }, (_, i) => `org-${first + 2 * i}`);
    const warmTenant = 'org-0';
    const reads = await runReads(bullpen, {
      queue: QUEUE,
      jobs,
      pageSize: PAGE_SIZE,
      deepPage,
      dlqFilter: DLQ_FILTER,
      warmTenant,
      coldTenants: coldFor(1),
      reps,
    });
    const m = (t: { samples: number[] }) => fmt(median(t.samples), 1);
    console.log(
      `  read models (median ms): overview ${m(reads.overview)}, page 1 ${m(reads.firstPage)}, page ${deepPage} ${m(reads.deepPage)}, dead letters ${m(reads.dlqCold)} cold / ${m(reads.dlqWarm)} warm`,
    );

    const probes = pageProbes(bullpen, jobs, deepPage, warmTenant, coldFor(2));
    const http = await measureHttp(bullpen, opts.redis, probes, httpReps);
    console.log(http.timings ? '  HTTP pages measured' : `  HTTP pages skipped: ${http.error ?? http.build.unusable}`);

    // The sizes as they are, then the largest again under a small heap: the proof that nothing grows with N.
    const { runs: retry, cappedFailure } = await runRetryAll(bullpen, opts.redis.port, failed, [
      ...retrySizes.map((n) => ({ jobs: n })),
      { jobs: Math.max(...retrySizes), heapCapMiB: HEAP_CAP_MIB },
    ]);
    return {
      command: commandLine(),
      queue: QUEUE,
      jobs,
      deadLetters,
      queues: SHIPPED_JOB_NAMES.length,
      pageSize: PAGE_SIZE,
      deepPage,
      reps,
      httpReps,
      dlqFilter: { ...DLQ_FILTER, tenants: DLQ_TENANTS, warmTenant, warmMatches: reads.dlqMatches },
      seed,
      reads,
      http,
      retryQueue: RETRY_QUEUE,
      retry,
      ...(cappedFailure ? { retryCappedFailure: cappedFailure } : {}),
      load: { start: loadStart, end: loadavg()[0] },
      totalS: (performance.now() - started) / 1_000,
    };
  } finally {
    await bullpen.close();
  }
}

/**
 * The URLs of the measured pages and what each must show: job ids from both ends of
 * the page, and the first dead letter of the filter as the read model finds it (read
 * after the page's GETs, so the check never pre-computes a "cold" intersection).
 * Cold dead-letter rounds take `coldTenants` in turn (the warm-up rounds the first).
 */
function pageProbes(bullpen: Bullpen, jobs: number, deepPage: number, warmTenant: string, coldTenants: string[]): PageProbe[] {
  const firstDlqId = async (tenant: string) =>
    (await readDeadLetterList(bullpen, { ...DLQ_FILTER, tenant, page: 1, pageSize: PAGE_SIZE })).rows[0]?.id ?? '(none)';
  const jobLink = (id: number) => `/jobs/${id}`;
  // Not the page's first id on page 1: it equals the count, which the page shows anyway.
  const pageEnds = (page: number) => [jobLink(jobs - (page - 1) * PAGE_SIZE - 1), jobLink(jobs - page * PAGE_SIZE + 1)];
  const queuePath = (page: number) => `/queues/${QUEUE}?state=completed&size=${PAGE_SIZE}${page > 1 ? `&page=${page}` : ''}`;
  const dlqPath = (tenant: string) => `/dead-letters?type=${DLQ_FILTER.type}&tenant=${tenant}&class=${DLQ_FILTER.errorClass}`;
  const cold = (round: number) => coldTenants[Math.min(round + 1, coldTenants.length - 1)];
  return [
    { key: 'overview', path: () => '/', markers: () => [`/queues/${QUEUE}`, `/queues/${RETRY_QUEUE}`] },
    { key: 'firstPage', path: () => queuePath(1), markers: () => pageEnds(1) },
    { key: 'deepPage', path: () => queuePath(deepPage), markers: () => pageEnds(deepPage) },
    { key: 'dlqCold', path: (round) => dlqPath(cold(round)), markers: async (round) => [await firstDlqId(cold(round))] },
    { key: 'dlqWarm', path: () => dlqPath(warmTenant), markers: async () => [await firstDlqId(warmTenant)] },
  ];
}
