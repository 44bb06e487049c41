import 'server-only';
import type { Job, Queue } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { AppError } from '@/lib/errors/app-error';
import { retryVerdict } from '@/lib/dlq/retry-verdict';
import { formatJob, jobStateSchema, jobSummarySchema, type JobSummary, type OutcomeReader } from '@/dashboard/jobs/job-summary';
import { retryMarkOf } from '@/dashboard/client/retry-mark';
import { scanJobIds, SCAN_LIMIT } from './job-scan';
import { pageCountOf } from '@/dashboard/client/pagination';
import { isFiltered, type QueueFilters } from '@/dashboard/client/queue-filters';
import { readStateCounts, stateCountsSchema } from './queue-overview';
import { resolveQueue } from './queue-ref';
import { effectiveRateLimit, type Throughput, throughputSchema } from '@/dashboard/client/throughput-limits';

export const queuePageSchema = z.object({
  queue: z.object({
    /** How URLs and actions name the queue: its type, or `<prefix>~<name>` for a foreign one. */
    name: z.string(),
    /** BullMQ's queue name and prefix. */
    queueName: z.string(),
    prefix: z.string(),
    /** A BullMQ queue this dashboard's job table does not define. */
    foreign: z.boolean(),
    group: z.string(),
    description: z.string(),
    paused: z.boolean(),
    counts: stateCountsSchema,
    /** Global concurrency and rate limit, beside the job table's own values. */
    /** The table's own queues only. */
    throughput: throughputSchema.optional(),
  }),
  state: jobStateSchema,
  jobs: z.array(jobSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Jobs in the state (unfiltered only: a filter's total is unknown without a full scan). */
  total: z.number().int().optional(),
  pageCount: z.number().int().optional(),
  hasNext: z.boolean(),
  /** Filtered pages: how many ids were examined and whether the scan stopped at its cap. */
  scan: z.object({ scanned: z.number().int(), limit: z.number().int(), capped: z.boolean() }).optional(),
});
export type QueuePage = z.infer<typeof queuePageSchema>;

/** The queue for a URL segment, or NOT_FOUND (the page answers 404): one of the job table's types. */
export function requireQueueName(bullpen: Bullpen, name: string): string {
  if (!bullpen.jobs.has(name)) throw new AppError('NOT_FOUND', `No queue named "${name}"`, { queue: name });
  return name;
}

/**
 * One page of a state, newest first. Unfiltered, it reads exactly one range
 * (`getJobs(state, start, end, desc)`: ZREVRANGE/LRANGE, then one HGETALL per job on
 * the page), so page 1 and page 40,000 cost the same; the total is the O(1) count.
 * With a name or tenant filter it runs a bounded scan inside Redis (job-scan.ts) and
 * reports how far it searched.
 */
export async function readQueuePage(bullpen: Bullpen, name: string, f: QueueFilters, scanLimit = SCAN_LIMIT): Promise<QueuePage> {
  const resolved = await resolveQueue(bullpen, name);
  const { queue, ref: type } = resolved;
  const def = resolved.type ? bullpen.jobs.get(resolved.type) : undefined;
  // A foreign queue's jobs are another service's: no result summaries of this table's types.
  const outcomes = resolved.type ? bullpen.jobs : undefined;
  // Throughput limits are shown for the table's own queues (their defaults come from it).
  const [counts, paused, throughput] = await Promise.all([
    readStateCounts(queue),
    queue.isPaused(),
    resolved.type ? readThroughput(bullpen, resolved.type) : Promise.resolve(undefined),
  ]);
  const header = {
    name: type,
    queueName: resolved.name,
    prefix: resolved.prefix,
    foreign: resolved.foreign,
    group: def?.group ?? 'foreign',
    description:
      def?.description ??
      `A BullMQ queue under the prefix "${resolved.prefix}" that this dashboard does not define; its jobs are shown as they are.`,
    paused,
    counts,
    ...(throughput ? { throughput } : {}),
  };
  const start = (f.page - 1) * f.pageSize;

  if (!isFiltered(f)) {
    const total = counts[f.state];
    const jobs = start < total ? await queue.getJobs([f.state], start, start + f.pageSize - 1, false) : [];
    return {
      queue: header,
      state: f.state,
      jobs: await withRetryMarks(bullpen, resolved, f.state, present(jobs), outcomes),
      page: f.page,
      pageSize: f.pageSize,
      total,
      pageCount: pageCountOf(total, f.pageSize),
      hasNext: start + f.pageSize < total,
    };
  }

  const scan = await scanJobIds(bullpen.redis, queue, f.state, {
    name: f.name,
    tenant: f.tenant,
    want: start + f.pageSize + 1,
    limit: scanLimit,
  });
  const pageIds = scan.ids.slice(start, start + f.pageSize);
  const jobs = await loadJobs(queue, pageIds);
  return {
    queue: header,
    state: f.state,
    jobs: await withRetryMarks(bullpen, resolved, f.state, jobs, outcomes),
    page: f.page,
    pageSize: f.pageSize,
    hasNext: scan.ids.length > start + f.pageSize,
    scan: { scanned: scan.scanned, limit: scanLimit, capped: scan.capped },
  };
}

/**
 * The page's summaries; on the failed tab of the table's own queues each job whose Retry
 * would be refused carries why (one pipeline of record reads for the page), so the row
 * says it before anyone presses anything.
 */
async function withRetryMarks(
  bullpen: Bullpen,
  queue: { ref: string; type?: string },
  state: QueueFilters['state'],
  jobs: Job[],
  outcomes: OutcomeReader | undefined,
): Promise<JobSummary[]> {
  const rows = jobs.map((j) => formatJob(j, queue.ref, state, outcomes));
  const type = queue.type;
  if (!type || state !== 'failed' || jobs.length === 0) return rows;
  const chains = await bullpen.dlq.chainStates(
    type,
    jobs.map((j) => ({ id: String(j.id), data: j.data })),
  );
  return rows.map((row, i) => {
    const mark = retryMarkOf(retryVerdict(chains.get(row.id), row.id, jobs[i].finishedOn));
    return mark ? { ...row, retryRefused: mark } : row;
  });
}

/** Jobs by id in the given order; ids removed meanwhile (retention, an operator) are skipped. */
export async function loadJobs(queue: Queue, ids: string[]): Promise<Job[]> {
  return present(await Promise.all(ids.map((id) => queue.getJob(id))));
}

function present(jobs: Array<Job | undefined | null>): Job[] {
  return jobs.filter((j): j is Job => !!j && j.id !== undefined);
}

/** The queue's limits and the job table's values beside them: one HGET and one HMGET on the meta hash. */
export async function readThroughput(bullpen: Bullpen, name: string): Promise<Throughput> {
  const type = requireQueueName(bullpen, name);
  const queue = bullpen.queues.get(type);
  const def = bullpen.jobs.get(type);
  const [globalConcurrency, global] = await Promise.all([queue.getGlobalConcurrency(), queue.getGlobalRateLimit()]);
  const globalRateLimit = global && { max: global.max, durationMs: global.duration };
  const typeRateLimit = def.rateLimit ? { max: def.rateLimit.max, durationMs: def.rateLimit.durationMs } : null;
  return {
    globalConcurrency,
    globalRateLimit,
    processConcurrency: def.concurrency,
    typeRateLimit,
    effectiveRateLimit: effectiveRateLimit(globalRateLimit, typeRateLimit),
  };
}
