/**
 * (a) The read models the dashboard's pages call, timed in this process against the
 * seeded Redis: no HTTP, no React, no live cache — the Redis work and the mapping of
 * each page. Every read's result is checked (the right jobs, the right entries), so a
 * fast wrong answer cannot pass for a fast page.
 */
import type { Bullpen } from '@/lib/bullpen';
import { readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { readOverview } from '@/dashboard/queues/queue-overview';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import type { ErrorClass } from '@/lib/errors/classify';
import type { ShippedJobName } from '@/jobs';

export interface Timing {
  /** Milliseconds of each repetition, in run order. */
  samples: number[];
}

export interface ReadsSpec {
  queue: ShippedJobName;
  /** Jobs in the queue's completed state (ids 1..jobs, newest = highest id). */
  jobs: number;
  pageSize: number;
  deepPage: number;
  dlqFilter: { type: string; errorClass: ErrorClass };
  /** The tenant read again and again (warm). */
  warmTenant: string;
  /** One tenant per cold read, none read before: the store intersects its indexes anew. */
  coldTenants: string[];
  reps: number;
}

export interface ReadsResult {
  overview: Timing;
  firstPage: Timing;
  deepPage: Timing;
  /** Each repetition a different tenant: the store intersects its indexes anew. */
  dlqCold: Timing;
  /** The same filter again: the store's cached intersection (10 s, version-keyed). */
  dlqWarm: Timing;
  /** Entries matching the warm filter. */
  dlqMatches: number;
}

/** Runs `fn` once to warm up, then `reps` times; each result goes through `check`. */
export async function timeReps<T>(reps: number, fn: (i: number) => Promise<T>, check: (r: T, i: number) => void): Promise<Timing> {
  check(await fn(-1), -1);
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const r = await fn(i);
    samples.push(performance.now() - t0);
    check(r, i);
  }
  return { samples };
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`dashboard bench: ${what}`);
}

export async function runReads(bullpen: Bullpen, s: ReadsSpec): Promise<ReadsResult> {
  const overview = await timeReps(
    s.reps,
    () => readOverview(bullpen, Date.now()),
    (o) =>
      expect(
        o.queues.find((q) => q.name === s.queue)?.counts.completed === s.jobs,
        `the overview counts ${s.jobs} completed in ${s.queue}`,
      ),
  );
  const page = (n: number) => readQueuePage(bullpen, s.queue, { state: 'completed', page: n, pageSize: s.pageSize });
  // Newest first: page n starts at id jobs - (n-1)*size.
  const startsAt = (n: number) => String(s.jobs - (n - 1) * s.pageSize);
  const firstPage = await timeReps(
    s.reps,
    () => page(1),
    (p) =>
      expect(p.jobs.length === s.pageSize && p.jobs[0].id === startsAt(1) && p.total === s.jobs, `page 1 starts at job ${startsAt(1)}`),
  );
  const deepPage = await timeReps(
    s.reps,
    () => page(s.deepPage),
    (p) =>
      expect(
        p.jobs.length === s.pageSize && p.jobs[0].id === startsAt(s.deepPage),
        `page ${s.deepPage} starts at job ${startsAt(s.deepPage)} (got ${p.jobs[0]?.id})`,
      ),
  );
  const dlq = (tenant: string) => readDeadLetterList(bullpen, { ...s.dlqFilter, tenant, page: 1, pageSize: s.pageSize });
  const matches = (tenant: string) => (l: Awaited<ReturnType<typeof dlq>>) =>
    expect(
      l.total > 0 &&
        l.rows.every((r) => r.jobType === s.dlqFilter.type && r.errorClass === s.dlqFilter.errorClass && r.tenant?.orgId === tenant),
      `the filtered dead-letter page holds only ${s.dlqFilter.type}/${s.dlqFilter.errorClass}/${tenant} entries`,
    );
  expect(s.coldTenants.length >= s.reps, 'a cold tenant for every repetition');
  // The warm-up of the cold series reads the warm tenant, so every timed read is a first.
  const dlqCold = await timeReps(
    s.reps,
    (i) => dlq(i < 0 ? s.warmTenant : s.coldTenants[i]),
    (l, i) => matches(i < 0 ? s.warmTenant : s.coldTenants[i])(l),
  );
  const dlqWarm = await timeReps(s.reps, () => dlq(s.warmTenant), matches(s.warmTenant));
  const dlqMatches = (await dlq(s.warmTenant)).total;
  return { overview, firstPage, deepPage, dlqCold, dlqWarm, dlqMatches };
}
