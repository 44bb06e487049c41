import 'server-only';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { healthStatusSchema } from '@/lib/health/health-status';
import { seriesPointSchema, summarise, sumSeries, toSeries } from '@/dashboard/client/chart-series';
import { JOB_STATES } from '@/dashboard/jobs/job-summary';
import { type ClientNames, readClientNames, workersOf } from '@/lib/redis/client-list';

export const stateCountsSchema = z.object({
  waiting: z.number().int(),
  active: z.number().int(),
  delayed: z.number().int(),
  prioritized: z.number().int(),
  'waiting-children': z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
});
export type StateCounts = z.infer<typeof stateCountsSchema>;

export const queueOverviewSchema = z.object({
  name: z.string(),
  group: z.string(),
  description: z.string(),
  counts: stateCountsSchema,
  /** BullMQ 6 reports a paused queue's jobs as waiting: the flag says it is paused. */
  paused: z.boolean(),
  /** Worker connections on this queue; null: CLIENT LIST is not allowed on this Redis. */
  workers: z.number().int().nullable(),
  /** Names of the worker processes serving it (the pool's `bullpen:<host>:<pid>`). */
  workerNames: z.array(z.string()),
  series: z.array(seriesPointSchema),
  jobsPerMin: z.number(),
  failureRate: z.number(),
});
export type QueueOverview = z.infer<typeof queueOverviewSchema>;

export const overviewSchema = z.object({
  queues: z.array(queueOverviewSchema),
  /** `workers`: distinct worker processes across all queues (null when unknowable). */
  totals: stateCountsSchema.extend({ workers: z.number().int().nullable(), paused: z.number().int() }),
  series: z.array(seriesPointSchema),
  jobsPerMin: z.number(),
  failureRate: z.number(),
  /** Pending dead letters; null when the DLQ could not be read. */
  deadLetters: z.number().int().nullable(),
  health: healthStatusSchema.nullable(),
  generatedAt: z.number().int(),
});
export type Overview = z.infer<typeof overviewSchema>;

/** Counts of every state, O(1) each (one script call). */
export async function readStateCounts(queue: Queue): Promise<StateCounts> {
  const c = await queue.getJobCounts(...JOB_STATES);
  return {
    waiting: c.waiting ?? 0,
    active: c.active ?? 0,
    delayed: c.delayed ?? 0,
    prioritized: c.prioritized ?? 0,
    'waiting-children': c['waiting-children'] ?? 0,
    completed: c.completed ?? 0,
    failed: c.failed ?? 0,
  };
}

/**
 * One queue's tile: counts, paused flag, workers and the last hour of throughput.
 * `clientNames`: the server's client names, read once for every tile of a page (null: unknowable).
 */
export async function readQueueOverview(
  bullpen: Bullpen,
  type: string,
  nowMs: number,
  clientNames: Promise<ClientNames | null> = readClientNames(bullpen.redis),
): Promise<QueueOverview> {
  const queue = bullpen.queues.get(type);
  const [clients, counts, paused, completed, failed] = await Promise.all([
    clientNames.catch(() => null),
    readStateCounts(queue),
    queue.isPaused(),
    queue.getMetrics('completed', 0, 59),
    queue.getMetrics('failed', 0, 59),
  ]);
  const workers = clients && workersOf(clients, queue);
  const series = toSeries({ completed, failed }, nowMs);
  const def = bullpen.jobs.get(type);
  return {
    name: type,
    group: def.group,
    description: def.description,
    counts,
    paused,
    workers: workers?.length ?? null,
    workerNames: workers ?? [],
    series,
    ...summarise(series),
  };
}

/**
 * The overview page: every queue of the registry, totals, the all-queue throughput
 * series, pending dead letters and the health status. The DLQ and health reads are
 * optional extras: if either fails the page still shows the queues.
 */
export async function readOverview(bullpen: Bullpen, nowMs: number): Promise<Overview> {
  const clients = readClientNames(bullpen.redis).catch(() => null);
  const [queues, deadLetters, health] = await Promise.all([
    Promise.all(bullpen.jobs.names.map((t) => readQueueOverview(bullpen, t, nowMs, clients))),
    bullpen.dlq.pendingCount().catch(() => null),
    bullpen.health
      .publicSummary()
      .then((h) => h.status)
      .catch(() => null),
  ]);
  const series = sumSeries(queues.map((q) => q.series));
  const sum = (k: keyof StateCounts) => queues.reduce((s, q) => s + q.counts[k], 0);
  const knownWorkers = queues.filter((q) => q.workers !== null);
  return {
    queues,
    totals: {
      waiting: sum('waiting'),
      active: sum('active'),
      delayed: sum('delayed'),
      prioritized: sum('prioritized'),
      'waiting-children': sum('waiting-children'),
      completed: sum('completed'),
      failed: sum('failed'),
      paused: queues.filter((q) => q.paused).length,
      workers: knownWorkers.length ? new Set(knownWorkers.flatMap((q) => q.workerNames)).size : null,
    },
    series,
    ...summarise(series),
    deadLetters,
    health,
    generatedAt: nowMs,
  };
}
