import { describe, expect, it } from 'vitest';
import { deadLetterInputSchema } from '@/lib/dlq/entry';
import { ERROR_CLASSES } from '@/lib/errors/classify';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { JOB_TYPE_NAMES } from '../../helpers/shipped-jobs';
import { summariseMemory } from '@/scripts/bench/dashboard-memory';
import type { RetryRun } from '@/scripts/bench/dashboard-retry';
import { dashboardSection, heapGrowthFactor, judgedMs, type DashboardBenchResult } from '@/scripts/bench/dashboard-section';
import { seededRandom } from '@/jobs/shared/seeded-random';
import { cloneEnvelope, envelopeFormat, spreadDeadLetter } from '@/scripts/bench/dashboard-seed';

/** What Redis's Lua `string.format(fmt, a, b)` does with our format: `%d` in order, `%%` → `%`. */
function luaFormat(fmt: string, ...args: number[]): string {
  let i = 0;
  return fmt.replace(/%(%|d)/g, (_, c: string) => (c === '%' ? '%' : String(args[i++])));
}

const template: JobEnvelope = {
  payload: { webhookId: 'wh-1', event: 'discount.100%', payload: { note: 'a "quoted" %d and 50%' } },
  tenant: { orgId: 'org-0' },
  requestId: 'r-template',
  dispatchedAt: 1_700_000_000_000,
};

describe('clone envelopes', () => {
  it('the Lua format yields the same envelope the dead letters carry, % signs included', () => {
    const fmt = envelopeFormat(template);
    for (const id of [1, 49, 50, 999_999]) {
      const fromLua = JSON.parse(luaFormat(fmt, id % 50, id));
      expect(fromLua).toEqual(cloneEnvelope(template, id, 50));
      expect(fromLua.tenant).toEqual({ orgId: `org-${id % 50}` });
      expect(fromLua.requestId).toBe(`bench-${id}`);
      expect(fromLua.payload).toEqual(template.payload);
    }
  });

  it('refuses a template whose request id comes before the tenant (the format takes the tenant first)', () => {
    const { tenant: _t, ...rest } = template;
    const reordered = { ...rest, tenant: { orgId: 'org-0' } } as JobEnvelope;
    expect(() => envelopeFormat(reordered)).toThrow(/requestId before tenant/);
  });
});

describe('spread of dead letters', () => {
  const now = 1_800_000_000_000;
  const entries = (n: number, seed = 3) => {
    const rnd = seededRandom(seed);
    return Array.from({ length: n }, (_, i) => spreadDeadLetter(i, rnd, { tenants: 50, windowMs: 7 * 86_400_000, now }));
  };

  it('every entry is a valid dead-letter input with its own job id, inside the window', () => {
    const all = entries(2_000);
    for (const e of all) {
      expect(deadLetterInputSchema.safeParse(e).success).toBe(true);
      expect(e.failedAt).toBeLessThanOrEqual(now);
      expect(e.failedAt).toBeGreaterThan(now - 7 * 86_400_000);
      expect(e.tenant).toEqual((e.jobData as JobEnvelope).tenant);
    }
    expect(new Set(all.map((e) => e.jobId)).size).toBe(all.length);
  });

  it('covers every type and error class, webhooks and network errors the most common', () => {
    const all = entries(20_000);
    const count = (key: (e: (typeof all)[number]) => string) => {
      const m = new Map<string, number>();
      for (const e of all) m.set(key(e), (m.get(key(e)) ?? 0) + 1);
      return m;
    };
    const types = count((e) => e.jobType);
    const classes = count((e) => e.error.errorClass);
    expect(new Set(types.keys())).toEqual(new Set(JOB_TYPE_NAMES));
    expect(new Set(classes.keys())).toEqual(new Set(ERROR_CLASSES));
    expect(Math.max(...types.values())).toBe(types.get('webhook-dispatch'));
    expect(Math.max(...classes.values())).toBe(classes.get('network'));
  });

  it('is deterministic: the same seed gives the same entries', () => {
    expect(entries(50, 7)).toEqual(entries(50, 7));
    expect(entries(50, 7)).not.toEqual(entries(50, 8));
  });
});

describe('summariseMemory', () => {
  it('takes the peaks over the baseline', () => {
    const s = summariseMemory({ rss: 100, heapUsed: 40 }, [
      { at: 0, rss: 120, heapUsed: 50 },
      { at: 50, rss: 180, heapUsed: 45 },
      { at: 100, rss: 110, heapUsed: 70 },
    ]);
    expect(s).toMatchObject({ samples: 3, peakRss: 180, peakHeap: 70, rssGrowth: 80, heapGrowth: 30 });
  });

  it('an empty series or one below the baseline grows by nothing', () => {
    expect(summariseMemory({ rss: 100, heapUsed: 40 }, [])).toMatchObject({ rssGrowth: 0, heapGrowth: 0 });
    expect(summariseMemory({ rss: 100, heapUsed: 40 }, [{ at: 0, rss: 90, heapUsed: 30 }])).toMatchObject({ rssGrowth: 0, heapGrowth: 0 });
  });
});

const MiB = 1_048_576;
const timing = (...samples: number[]) => ({ samples });

function retryRun(jobs: number, heapGrowthMiB: number, heapCapMiB?: number): RetryRun {
  return {
    jobs,
    heapCapMiB,
    ms: jobs / 2,
    seedMs: { jobs: 10, deadLetters: 20 },
    progressReports: jobs / 500 + 1,
    retainedHeap: 0.5 * MiB,
    operation: {
      id: '00000000-0000-0000-0000-000000000000',
      kind: 'queue.retry-all',
      target: { kind: 'queue', id: 'slack-sync' },
      by: 'bench',
      status: 'done',
      total: jobs,
      done: jobs,
      succeeded: jobs,
      skipped: 0,
      failed: 0,
      startedAt: 0,
      finishedAt: 1,
      message: null,
    },
    memory: {
      samples: 40,
      baselineRss: 100 * MiB,
      baselineHeap: 20 * MiB,
      peakRss: 130 * MiB,
      peakHeap: (20 + heapGrowthMiB) * MiB,
      rssGrowth: 30 * MiB,
      heapGrowth: heapGrowthMiB * MiB,
    },
  };
}

function result(over: Partial<DashboardBenchResult> = {}): DashboardBenchResult {
  const reads = {
    overview: timing(20, 30, 25),
    firstPage: timing(10, 12, 11),
    deepPage: timing(12, 14, 13),
    dlqCold: timing(8, 9, 10),
    dlqWarm: timing(4, 5, 6),
    dlqMatches: 120,
  };
  const http = (ms: number) => ({ fresh: timing(ms, ms + 2, ms - 2), firstByte: timing(ms / 2), cached: timing(ms / 3), bytes: 90_000 });
  return {
    command: 'node --import tsx scripts/bench/index.ts dashboard',
    queue: 'webhook-dispatch',
    jobs: 1_000_000,
    deadLetters: 100_000,
    queues: 18,
    pageSize: 50,
    deepPage: 10_000,
    reps: 3,
    httpReps: 3,
    dlqFilter: { type: 'webhook-dispatch', errorClass: 'network', tenants: 50, warmTenant: 'org-0', warmMatches: 120 },
    seed: { jobsMs: 30_000, deadLettersMs: 40_000, redisMemory: '1.2G' },
    reads,
    http: {
      build: {},
      timings: { overview: http(90), firstPage: http(60), deepPage: http(66), dlqCold: http(40), dlqWarm: http(30) },
    },
    retryQueue: 'slack-sync',
    retry: [retryRun(10_000, 18), retryRun(50_000, 19), retryRun(100_000, 21), retryRun(100_000, 4, 32)],
    load: { start: 2.5, end: 3.1 },
    totalS: 420,
    ...over,
  };
}

describe('dashboardSection', () => {
  it('writes the figures, the deep/first ratio and met targets', () => {
    const md = dashboardSection(result());
    expect(md.startsWith('## Dashboard\n')).toBe(true);
    expect(md).toContain('Command: `node --import tsx scripts/bench/index.ts dashboard`');
    expect(md).toContain('**1,000,000 jobs in `webhook-dispatch`');
    expect(md).toMatch(
      /\| Queue `webhook-dispatch`, completed, page 10,000 \(jobs 499,951–500,000 counted from the newest\) \| 13\.0 \(12\.0–14\.0\) \| 66\.0 \| 33\.0 \| 22\.0 \| 88 \| met \|/,
    );
    expect(md).toContain('**Deep page / first page: 1.18** (read model), **1.10** (HTTP)');
    expect(md).toContain('Every page is under 150 ms (target met).');
    expect(md).not.toContain('missed');
    expect(md).toContain('| 100,000 | 50.0 | 2,000 | 201 | 21.0 | 30.0 | 0.5 |');
    expect(md).toContain(
      '**Memory is flat in N** (target met): peak heap growth 18.0 MiB at 10,000 jobs and 21.0 MiB at 100,000 (10× the jobs, 1.2× the growth)',
    );
    expect(md).toContain('| 100,000, old space capped at 32 MiB | 50.0 |');
    expect(md).toContain(
      "Run again with V8's old space capped at 32 MiB (semi-space 1 MiB), 100,000 jobs were retried in 50.0 s with a peak heap of 24.0 MiB (+4.0)",
    );
  });

  it('judges a page by its HTTP time and says plainly when the target is missed', () => {
    const r = result();
    r.http.timings!.overview.fresh = timing(300, 310, 320);
    expect(judgedMs(r, 'overview')).toBe(310);
    const md = dashboardSection(r);
    expect(md).toMatch(/\| Overview .* \| \*\*missed\*\* \(2\.1× the target\) \|/);
    expect(md).toContain('**Target missed for overview**');
  });

  it('writes the weighed pages: what fills them, gzipped against 60 KiB, and the median first paint', () => {
    const weight = (bytes: number, gzipBytes: number) => ({
      bytes,
      gzipBytes,
      rscBytes: bytes / 2,
      inlineScriptBytes: 1_024,
      markupBytes: bytes / 2 - 1_024,
    });
    const r = result();
    r.http.pages = {
      overview: { path: '/', weight: weight(160 * 1_024, 30 * 1_024), paints: [300, 120, 200, 180, 150] },
      firstPage: { path: '/queues/webhook-dispatch?state=completed&size=50', weight: weight(100 * 1_024, 62 * 1_024), paints: [] },
    };
    r.http.pages.firstPage!.paintError = 'Chromium did not start';
    const md = dashboardSection(r);
    expect(md).toContain('#### Page weight and first paint');
    expect(md).toContain('| `/` | 160.0 | 80.0 | 1.0 | 79.0 | 30.0 | met | 180 (120–300) |');
    expect(md).toContain('| `/queues/webhook-dispatch?state=completed&size=50` | 100.0 | 50.0 | 1.0 | 49.0 | 62.0 | **missed** | — |');
    expect(md).toContain('**No paint measured**: firstPage: Chromium did not start.');
  });

  it('without the HTTP half says so and judges by the read models', () => {
    const r = result({ http: { build: { unusable: '`next build` failed (its output is in the bench log)' } } });
    const md = dashboardSection(r);
    expect(md).toContain('**The HTTP half did not run: `next build` failed');
    expect(judgedMs(r, 'firstPage')).toBe(11);
    expect(md).toMatch(
      /\| Queue `webhook-dispatch`, completed, page 1 \(50\/page\) \| 11\.0 \(10\.0–12\.0\) \| — \| — \| — \| — \| met \|/,
    );
    expect(md).not.toContain('(HTTP):');
  });

  it('reports memory that grows with N as not flat (the capped run is not part of the factor)', () => {
    const r = result({ retry: [retryRun(10_000, 10), retryRun(100_000, 95), retryRun(100_000, 1, 32)] });
    expect(heapGrowthFactor(r.retry)).toBeCloseTo(9.5);
    expect(dashboardSection(r)).toContain('**Memory is not flat** (target missed)');
  });

  it('a capped run that ran out of heap makes memory not flat, whatever the peaks say', () => {
    const r = result({
      retry: [retryRun(10_000, 18), retryRun(100_000, 21)],
      retryCappedFailure: { jobs: 100_000, heapCapMiB: 32, error: 'the retry-all child exited with 134 and no result' },
    });
    const md = dashboardSection(r);
    expect(md).toContain('**Memory is not flat** (target missed)');
    expect(md).toContain(
      "**With V8's old space capped at 32 MiB, 100,000 jobs did not finish** (the retry-all child exited with 134 and no result)",
    );
  });
});
