/**
 * The dashboard section of docs/benchmarks.md, from one run's figures. Pure: the
 * result in, markdown out, so its wording and verdicts have unit tests.
 */
import type { BuildOutcome } from './dashboard-next';
import type { HttpTiming } from './dashboard-http';
import { mib } from './dashboard-memory';
import type { ReadsResult, Timing } from './dashboard-reads';
import type { RetryRun } from './dashboard-retry';
import type { PageWeight } from './page-weight';
import { fmt, median } from './stats';

/** The issue's target for every page. */
export const PAGE_TARGET_MS = 150;
/**
 * Retry-all memory counts as flat when the largest run's peak heap growth is within
 * this factor of the smallest run's, while the number of jobs grows tenfold.
 */
export const FLAT_FACTOR = 2;

export type PageKey = 'overview' | 'firstPage' | 'deepPage' | 'dlqCold' | 'dlqWarm';

/** The pages weighed and painted (issue 26: the overview and the queue page). */
export const WEIGHED_PAGES = ['overview', 'firstPage'] as const;
export type WeighedPage = (typeof WEIGHED_PAGES)[number];

/** The target for each weighed page's HTML, gzipped as a browser receives it. */
export const PAGE_WEIGHT_TARGET_KIB = 60;

export interface DashboardBenchResult {
  /** How the run was started, for the reader to repeat it. */
  command: string;
  queue: string;
  jobs: number;
  deadLetters: number;
  queues: number;
  pageSize: number;
  deepPage: number;
  reps: number;
  httpReps: number;
  /** The dead-letter page's filter; `tenants` is how many tenants the entries spread over. */
  dlqFilter: { type: string; errorClass: string; tenants: number; warmTenant: string; warmMatches: number };
  seed: { jobsMs: number; deadLettersMs: number; redisMemory: string };
  reads: ReadsResult;
  http: {
    build: BuildOutcome;
    timings?: Record<PageKey, HttpTiming>;
    error?: string;
    /** The overview's and the first queue page's weight and cold-browser first paints (ms). */
    pages?: Partial<Record<WeighedPage, { path: string; weight: PageWeight; paints: number[]; paintError?: string }>>;
  };
  retryQueue: string;
  retry: RetryRun[];
  /** The heap-capped proof run ran out of heap (or otherwise failed). */
  retryCappedFailure?: { jobs: number; heapCapMiB: number; error: string };
  /** 1-minute load average when the run started and ended: the machine is shared. */
  load: { start: number; end: number };
  totalS: number;
}

function ms(t: Timing | undefined): string {
  return t?.samples.length ? fmt(median(t.samples), 1) : '—';
}

function range(t: Timing): string {
  return `${fmt(Math.min(...t.samples), 1)}–${fmt(Math.max(...t.samples), 1)}`;
}

/** The figure a page is judged by: the HTTP page when there is one, else the read model. */
export function judgedMs(r: DashboardBenchResult, key: PageKey): number {
  const http = r.http.timings?.[key];
  return median((http ? http.fresh : r.reads[key]).samples);
}

export function verdict(valueMs: number): string {
  return valueMs < PAGE_TARGET_MS ? 'met' : `**missed** (${fmt(valueMs / PAGE_TARGET_MS, 1)}× the target)`;
}

/** Peak heap growth of the largest uncapped run over the smallest's. */
export function heapGrowthFactor(runs: readonly RetryRun[]): number {
  const sorted = runs.filter((x) => !x.heapCapMiB).sort((a, b) => a.jobs - b.jobs);
  if (sorted.length < 2) return 1;
  const small = Math.max(sorted[0].memory.heapGrowth, 1);
  return sorted[sorted.length - 1].memory.heapGrowth / small;
}

function pageRows(r: DashboardBenchResult): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const pages: Array<[PageKey, string]> = [
    ['overview', `Overview (${r.queues} queues: counts, paused, workers, 60 min of metrics; DLQ size; health)`],
    ['firstPage', `Queue \`${r.queue}\`, completed, page 1 (${r.pageSize}/page)`],
    [
      'deepPage',
      `Queue \`${r.queue}\`, completed, page ${n(r.deepPage)} (jobs ${n((r.deepPage - 1) * r.pageSize + 1)}–${n(r.deepPage * r.pageSize)} counted from the newest)`,
    ],
    [
      'dlqCold',
      `Dead letters, \`type=${r.dlqFilter.type}\` + tenant + \`class=${r.dlqFilter.errorClass}\`, a tenant not read before each time (indexes intersected anew; org-1, org-3, … in-process, org-2, org-4, … over HTTP)`,
    ],
    [
      'dlqWarm',
      `Dead letters, the same filter with tenant \`${r.dlqFilter.warmTenant}\` each time (intersection reused; ${n(r.dlqFilter.warmMatches)} matches)`,
    ],
  ];
  return pages.map(([key, label]) => {
    const http = r.http.timings?.[key];
    const kib = http ? fmt(http.bytes / 1_024, 0) : '—';
    const cells = [
      label,
      `${ms(r.reads[key])} (${range(r.reads[key])})`,
      ms(http?.fresh),
      ms(http?.firstByte),
      ms(http?.cached),
      kib,
      verdict(judgedMs(r, key)),
    ];
    return `| ${cells.join(' | ')} |`;
  });
}

/** What fills the weighed pages, and their first paint from a cold browser. */
export function weightLines(r: DashboardBenchResult): string[] {
  const pages = r.http.pages;
  if (!pages || WEIGHED_PAGES.every((k) => !pages[k])) return [];
  const kib = (b: number) => fmt(b / 1_024, 1);
  const rows = WEIGHED_PAGES.flatMap((k) => {
    const p = pages[k];
    if (!p) return [];
    const w = p.weight;
    const paint = p.paints.length ? `${fmt(median(p.paints), 0)} (${fmt(Math.min(...p.paints), 0)}–${fmt(Math.max(...p.paints), 0)})` : '—';
    const met = w.gzipBytes / 1_024 < PAGE_WEIGHT_TARGET_KIB ? 'met' : '**missed**';
    return [
      `| \`${p.path}\` | ${kib(w.bytes)} | ${kib(w.rscBytes)} | ${kib(w.inlineScriptBytes)} | ${kib(w.markupBytes)} | ${kib(w.gzipBytes)} | ${met} | ${paint} |`,
    ];
  });
  const paintErrors = WEIGHED_PAGES.flatMap((k) => (pages[k]?.paintError ? [`${k}: ${pages[k]?.paintError}`] : []));
  const samples = Math.max(...WEIGHED_PAGES.map((k) => pages[k]?.paints.length ?? 0));
  return [
    '#### Page weight and first paint',
    '',
    'What fills the HTML of the overview and the queue page for this data: the React Server Components payload Next.js',
    'inlines for hydration (`self.__next_f.push` scripts), other inline scripts, and the markup (elements and text), as',
    `sent and gzipped (what a browser asking for gzip receives; target under ${PAGE_WEIGHT_TARGET_KIB} KiB). First contentful paint: a new`,
    `Chromium (headless, \`--no-sandbox\`) per sample, so no cache and no compiled scripts, the viewer's cookie set, median of ${samples} (min–max), ms`,
    'from navigation start, as the page’s own Performance timeline reports it.',
    '',
    `| page | HTML, KiB | RSC payload, KiB | other inline scripts, KiB | markup, KiB | gzipped, KiB | < ${PAGE_WEIGHT_TARGET_KIB} KiB gzipped | first contentful paint, ms |`,
    '|---|---:|---:|---:|---:|---:|---|---:|',
    ...rows,
    ...(paintErrors.length ? ['', `**No paint measured**: ${paintErrors.join('; ')}.`] : []),
    '',
  ];
}

function httpNote(r: DashboardBenchResult): string[] {
  const b = r.http.build;
  if (r.http.error || b.unusable) {
    return [
      `**The HTTP half did not run: ${r.http.error ?? b.unusable}.** The verdicts below use the read models alone, which leave out`,
      'rendering, the session check and the network; the HTTP columns are empty.',
    ];
  }
  const build =
    b.builtInS !== undefined
      ? `built by this run in ${fmt(b.builtInS, 0)} s`
      : b.stale
        ? 'an existing build older than the sources (BENCH_NO_BUILD=1)'
        : 'an existing build as new as the sources';
  return [
    `HTTP: \`next start\` (${build}) on loopback against this Redis, GET with a signed-in viewer's session cookie, the`,
    `whole streamed document timed. ${r.httpReps} rounds after 2 warm-up rounds, each page fetched with the 1.5 s live cache`,
    'expired ("fresh": what the server does for a page) and again at once ("cached": what other tabs get);',
    'every response was checked to show the expected job ids or dead-letter ids.',
  ];
}

function retryRows(r: DashboardBenchResult): string[] {
  return r.retry.map((x) => {
    const cells = [
      x.heapCapMiB ? `${x.jobs.toLocaleString('en-US')}, old space capped at ${x.heapCapMiB} MiB` : x.jobs.toLocaleString('en-US'),
      fmt(x.ms / 1_000, 1),
      fmt(x.jobs / (x.ms / 1_000), 0),
      String(x.progressReports),
      mib(x.memory.heapGrowth),
      mib(x.memory.rssGrowth),
      mib(x.retainedHeap),
      mib(x.memory.peakHeap),
      mib(x.memory.peakRss),
      String(x.memory.samples),
    ];
    return `| ${cells.join(' | ')} |`;
  });
}

function retryVerdict(r: DashboardBenchResult): string {
  const sorted = r.retry.filter((x) => !x.heapCapMiB).sort((a, b) => a.jobs - b.jobs);
  if (sorted.length < 2) return 'Too few runs to judge flatness.';
  const [lo, hi] = [sorted[0], sorted[sorted.length - 1]];
  const f = heapGrowthFactor(r.retry);
  const ratio = `${fmt(hi.jobs / lo.jobs, 0)}× the jobs`;
  const kept = sorted.map((x) => x.retainedHeap);
  const keptRange = `${mib(Math.min(...kept))}–${mib(Math.max(...kept))} MiB`;
  const growth = `peak heap growth ${mib(lo.memory.heapGrowth)} MiB at ${lo.jobs.toLocaleString('en-US')} jobs and ${mib(hi.memory.heapGrowth)} MiB at ${hi.jobs.toLocaleString('en-US')} (${ratio}, ${fmt(f, 1)}× the growth)`;
  const capped = r.retry.find((x) => x.heapCapMiB);
  const failure = r.retryCappedFailure;
  const proof = failure
    ? ` **With V8's old space capped at ${failure.heapCapMiB} MiB, ${failure.jobs.toLocaleString('en-US')} jobs did not finish** (${failure.error}): the operation needs more heap than that.`
    : capped
      ? ` Run again with V8's old space capped at ${capped.heapCapMiB} MiB (semi-space 1 MiB), ${capped.jobs.toLocaleString('en-US')} jobs were retried in ${fmt(capped.ms / 1_000, 1)} s with a peak heap of ${mib(capped.memory.peakHeap)} MiB (+${mib(capped.memory.heapGrowth)}): the uncapped peaks are garbage V8 had not yet collected, not state held per job.`
      : '';
  return f <= FLAT_FACTOR && !failure
    ? `**Memory is flat in N** (target met): ${growth}, and the heap kept after a full GC stayed at ${keptRange}.${proof}`
    : `**Memory is not flat** (target missed): ${growth}; the heap kept after a full GC was ${keptRange}.${proof}`;
}

export function dashboardSection(r: DashboardBenchResult): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const deepRatio = (t: { firstPage: Timing; deepPage: Timing }) => fmt(median(t.deepPage.samples) / median(t.firstPage.samples), 2);
  const httpT = r.http.timings;
  const missed = (['overview', 'firstPage', 'deepPage', 'dlqCold', 'dlqWarm'] as PageKey[]).filter((k) => judgedMs(r, k) >= PAGE_TARGET_MS);
  return [
    '## Dashboard',
    '',
    `Command: \`${r.command}\` (the whole dashboard bench took ${fmt(r.totalS / 60, 1)} min; load average ${fmt(r.load.start, 1)} at the start, ${fmt(r.load.end, 1)} at the end).`,
    '',
    `Data: **${n(r.jobs)} jobs in \`${r.queue}\`'s completed state** and **${n(r.deadLetters)} dead letters** over every job type,`,
    `${r.dlqFilter.tenants} tenants and every error class (skewed as production is: webhooks, network errors and the first tenants dominate).`,
    'One job of each kind ran for real through the WorkerPool; its BullMQ hash was then cloned inside Redis by a Lua',
    'script (ids, tenants, timestamps varied) and read back through BullMQ before measuring. Dead letters went through',
    '`DeadLetterStore.record`, 1,000 at a time. Retention (`removeOnComplete: 100`) acts only when a job completes, so',
    'the seeded history stays: this stands for a queue configured to keep its completed jobs.',
    '',
    '| seeding | time (s) |',
    '|---|---:|',
    `| ${n(r.jobs)} completed jobs (Lua clone, 5,000 per call) | ${fmt(r.seed.jobsMs / 1_000, 1)} |`,
    `| ${n(r.deadLetters)} dead letters (\`record\`, 1,000 concurrent) | ${fmt(r.seed.deadLettersMs / 1_000, 1)} |`,
    `| Redis memory after seeding | ${r.seed.redisMemory} |`,
    '',
    `Read model: the \`dashboard/\` function the page calls (\`readOverview\`, \`readQueuePage\`, \`readDeadLetterList\` →`,
    `\`bullpen.dlq.list\`), in the bench process: Redis and mapping, no rendering; median of ${r.reps} after a warm-up (min–max).`,
    ...httpNote(r),
    '',
    `| page | read model, ms | HTTP fresh, ms | HTTP first byte, ms | HTTP cached, ms | HTML, KiB | < ${PAGE_TARGET_MS} ms |`,
    '|---|---:|---:|---:|---:|---:|---|',
    ...pageRows(r),
    '',
    `**Deep page / first page: ${deepRatio(r.reads)}** (read model)${httpT ? `, **${deepRatio({ firstPage: httpT.firstPage.fresh, deepPage: httpT.deepPage.fresh })}** (HTTP)` : ''}: page ${n(r.deepPage)} is one`,
    '`ZREVRANGE` by rank (O(log N + page)) plus one `HGETALL` per job shown, like page 1.',
    '',
    missed.length === 0
      ? `Every page is under ${PAGE_TARGET_MS} ms (target met).`
      : `**Target missed for ${missed.join(', ')}**: see the figures above; on this shared 2-core machine the load average was ${fmt(r.load.start, 1)}–${fmt(r.load.end, 1)} during the run.`,
    '',
    ...weightLines(r),
    `### Retry all failed (\`${r.retryQueue}\`)`,
    '',
    'The queue page\'s "Retry all" exactly as its server action runs it: `BulkRunner.start` around',
    '`QueueOperations.retryAllFailed` (failed ids read 500 at a time by score, 50 retries in flight, each failed job',
    'retried with fresh attempts and its dead letter marked retried, progress written to Redis after every batch). Each',
    'run is a fresh child process (`--expose-gc`): baseline after a full GC, RSS and heap sampled every 50 ms. Every',
    'failed job had its dead letter; afterwards the bench checks that no job is left failed, all N wait again and all',
    "N dead letters are marked retried. The largest N runs once more with V8's heap capped, as the proof that nothing",
    'is held per job.',
    '',
    '| failed jobs | time (s) | jobs/s | progress writes | peak heap growth (MiB) | peak RSS growth (MiB) | heap kept after GC (MiB) | peak heap (MiB) | peak RSS (MiB) | samples |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...retryRows(r),
    '',
    retryVerdict(r),
    '',
  ].join('\n');
}
