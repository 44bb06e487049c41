import 'server-only';
import { z } from 'zod';
import type { Bullpen } from '@/lib/bullpen';
import { tenantSchema } from '@/lib/jobs/tenant';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_TTL_MS, heartbeatKeys, workerRecordSchema } from '@/lib/runtime/worker-heartbeat';
import { normalizeProgress, progressSchema } from '@/dashboard/jobs/job-summary';

/** A process whose heartbeat is older than this may be hung or gone. */
export const STALE_HEARTBEAT_MS = 3 * HEARTBEAT_INTERVAL_MS;
/** Running jobs whose progress is read per view, at most. */
const MAX_PROGRESS_READS = 200;
/** Active jobs checked for a lock per queue. */
const STALL_CHECK_PER_QUEUE = 100;

const runningJobSchema = z.object({
  jobId: z.string(),
  type: z.string(),
  attempt: z.number().int(),
  tenant: tenantSchema.optional(),
  startedAt: z.number().int(),
  runningMs: z.number().int(),
  progress: progressSchema.optional(),
  /** Running past its type's time limit: the timeout should have ended it. */
  stuck: z.boolean(),
});

export const workersViewSchema = z.object({
  processes: z.array(
    workerRecordSchema.omit({ running: true }).extend({
      running: z.array(runningJobSchema),
      /** No heartbeat for STALE_HEARTBEAT_MS: hung, or gone and not yet expired. */
      stale: z.boolean(),
    }),
  ),
  /**
   * Active jobs that need a look: `stalled`, their lock has lapsed (the worker stopped
   * renewing it; BullMQ's stalled check will run them again), or `overdue`, still active
   * a minute past their type's time limit although the runtime ends an attempt there.
   */
  attention: z.array(
    z.object({ queue: z.string(), jobId: z.string(), why: z.enum(['stalled', 'overdue']), processedAt: z.number().int().optional() }),
  ),
  generatedAt: z.number().int(),
});
export type WorkersView = z.infer<typeof workersViewSchema>;

/**
 * Every worker process that wrote a heartbeat lately, with what it runs now (each job's
 * progress read from BullMQ), the jobs running past their time limit marked stuck, and
 * the active jobs whose lock has lapsed (stalled), across the job table's queues.
 */
export async function readWorkersView(bullpen: Bullpen, now = Date.now()): Promise<WorkersView> {
  const k = heartbeatKeys(bullpen.keys);
  const ids = await bullpen.redis.zrangebyscore(k.index, now - HEARTBEAT_TTL_MS, '+inf');
  const raw = ids.length ? await bullpen.redis.mget(...ids.map(k.record)) : [];
  const records = raw.flatMap((r) => {
    if (!r) return [];
    const parsed = workerRecordSchema.safeParse(safeJson(r));
    return parsed.success ? [parsed.data] : [];
  });
  let reads = 0;
  const processes = await Promise.all(
    records
      .sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid)
      .map(async (rec) => ({
        ...rec,
        stale: now - rec.heartbeatAt > STALE_HEARTBEAT_MS,
        running: await Promise.all(
          rec.running.map(async (job) => {
            const known = bullpen.jobs.has(job.type);
            const live = known && reads++ < MAX_PROGRESS_READS ? await bullpen.queues.get(job.type).getJob(job.jobId) : undefined;
            const runningMs = Math.max(0, now - job.startedAt);
            return {
              ...job,
              runningMs,
              ...(live ? { progress: normalizeProgress(live.progress) } : {}),
              stuck: known && runningMs > bullpen.jobs.get(job.type).timeoutMs,
            };
          }),
        ),
      })),
  );
  return { processes, attention: await activeNeedingAttention(bullpen, now), generatedAt: now };
}

/** How long past its time limit an active job is overdue (the lock renewal and the timeout's own delay fit well inside). */
const OVERDUE_GRACE_MS = 60_000;

async function activeNeedingAttention(bullpen: Bullpen, now: number): Promise<WorkersView['attention']> {
  const perQueue = await Promise.all(
    bullpen.jobs.names.map(async (type) => {
      const queue = bullpen.queues.get(type);
      const ids = await bullpen.redis.lrange(queue.toKey('active'), 0, STALL_CHECK_PER_QUEUE - 1);
      if (ids.length === 0) return [];
      // One queue's keys share its hash tag: one pipeline per queue, even on a cluster.
      const pipe = bullpen.redis.pipeline();
      for (const id of ids) {
        pipe.exists(`${queue.toKey(id)}:lock`);
        pipe.hget(queue.toKey(id), 'processedOn');
      }
      const res = (await pipe.exec()) ?? [];
      const limit = bullpen.jobs.get(type).timeoutMs + OVERDUE_GRACE_MS;
      return ids.flatMap((id, i) => {
        const locked = Number(res[2 * i]?.[1] ?? 0) === 1;
        const processedOn = Number(res[2 * i + 1]?.[1]);
        const processedAt = Number.isFinite(processedOn) && processedOn > 0 ? processedOn : undefined;
        const why: 'stalled' | 'overdue' | undefined = !locked
          ? 'stalled'
          : processedAt !== undefined && now - processedAt > limit
            ? 'overdue'
            : undefined;
        return why ? [{ queue: type, jobId: id, why, ...(processedAt !== undefined ? { processedAt } : {}) }] : [];
      });
    }),
  );
  return perQueue.flat();
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
