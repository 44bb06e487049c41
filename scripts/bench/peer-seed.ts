/**
 * A million-job backlog for the peer benchmark, spread over every queue of the source table as a real
 * one would be: most jobs waiting (BullMQ keeps them in its `prioritized` set, since
 * every Bullpen type has a default priority), some delayed, and each queue's finished
 * jobs up to what its retention keeps (lib/jobs/queues.ts: the last 100 completed, up
 * to 1,000 failed).
 *
 * Sending a million jobs through the dispatcher takes minutes of Node time (validation
 * and BullMQ's per-job work), so the waiting jobs are clones, written inside Redis by a
 * Lua script, of one job per queue that the dispatcher sent for real: its hash with a
 * per-job tenant and request id, scored in `prioritized` by BullMQ's own formula
 * (priority × 2³² + the queue's priority counter, includes/getPriorityScore.lua). The
 * delayed ones go through the dispatcher's bulk path (1,000 jobs per MULTI, a few in
 * flight); completed and failed ones are clones of jobs run for real through the
 * runtime (dashboard-seed.ts). Everything is read back through BullMQ before use.
 */
import type { Bullpen } from '@/lib/bullpen';
import { RETENTION } from '@/lib/jobs/queues';
import { MAX_DISPATCH_BULK, type BulkItemOf } from '@/lib/jobs/dispatcher';
import { SHIPPED_JOB_NAMES, SHIPPED_JOBS, type PayloadInput, type ShippedJobName, type ShippedJobs } from '@/jobs';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { cloneJobs, envelopeFormat, makeTemplate, verifyClones } from './dashboard-seed';

/** Bulk dispatches in flight at once: enough to keep Redis busy while Node builds the next. */
const IN_FLIGHT = 4;
/** Share of each queue's unfinished jobs that are delayed (retries in backoff, jobs sent for later). */
const DELAYED_SHARE = 0.05;
/** Failed jobs kept per queue: half the retention, as if some had been replayed or cleared. */
const FAILED_PER_QUEUE = RETENTION.failed / 2;
const TENANTS = 40;
const HOUR = 3_600_000;
/** Jobs written per Lua call: tens of ms of Redis time, short enough not to starve other clients. */
const CLONE_BATCH = 5_000;
const SHIPPED_CATALOG = new JobCatalog(SHIPPED_JOBS);

/**
 * KEYS: job key prefix (`…:<queue>:`), the prioritized set, the priority counter, the
 * id counter, the marker. ARGV: first id, count, base time, ms between jobs, tenants,
 * data format (`%d` for the tenant number and the id), priority, then the template's
 * fixed field/value pairs. Ends as BullMQ's add does: a base marker for the workers.
 */
const PRIORITIZED_CLONE = `
local first, n, base, step, tenants = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local fmt, priority = ARGV[6], tonumber(ARGV[7])
local fixed = {}
for i = 8, #ARGV do fixed[#fixed + 1] = ARGV[i] end
for id = first, first + n - 1 do
  redis.call('HSET', KEYS[1] .. id, 'data', string.format(fmt, id % tenants, id), 'timestamp', base + id * step, unpack(fixed))
  local pc = redis.call('INCR', KEYS[3])
  redis.call('ZADD', KEYS[2], priority * 0x100000000 + pc % 0x100000000, id)
end
local last = first + n - 1
if tonumber(redis.call('GET', KEYS[4]) or '0') < last then redis.call('SET', KEYS[4], last) end
redis.call('ZADD', KEYS[5], 0, '0')
return n`;

/** The payload every seeded job of `type` carries: the example its declaration gives. */
export function seedPayload<K extends ShippedJobName>(type: K): PayloadInput<K> {
  return SHIPPED_CATALOG.get(type).example as PayloadInput<K>;
}

function item<K extends ShippedJobName>(type: K, i: number, delayMs: number): BulkItemOf<ShippedJobs> {
  return {
    type,
    data: seedPayload(type),
    opts: { tenant: { orgId: `org-${i % TENANTS}` }, ...(delayMs > 0 ? { delayMs } : {}) },
  } as BulkItemOf<ShippedJobs>;
}

export interface QueueBacklog {
  type: ShippedJobName;
  prioritized: number;
  delayed: number;
  completed: number;
  failed: number;
}

export interface Backlog {
  queues: QueueBacklog[];
  total: number;
  ms: { finished: number; unfinished: number };
}

/**
 * How `total` jobs spread over the queues: a few busy queues hold most of it (weights
 * 1/rank, webhook-dispatch and the embedding types first, as in docs/requirements.md's
 * volumes), each queue's finished jobs as its retention keeps them.
 */
export function planBacklog(total: number): QueueBacklog[] {
  const order: ShippedJobName[] = [
    'webhook-dispatch',
    'embedding-batch',
    'memory-consolidation',
    'slack-sync',
    ...SHIPPED_JOB_NAMES.filter((t) => !['webhook-dispatch', 'embedding-batch', 'memory-consolidation', 'slack-sync'].includes(t)),
  ];
  const finished = RETENTION.completed + FAILED_PER_QUEUE;
  const unfinished = total - finished * order.length;
  if (unfinished < order.length) throw new Error(`a backlog of ${total} jobs is smaller than the queues' finished jobs`);
  const weights = order.map((_, rank) => 1 / (rank + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => Math.floor((unfinished * w) / sum));
  // The rounding remainder goes to the busiest queue, so the total is exact.
  shares[0] += unfinished - shares.reduce((a, b) => a + b, 0);
  return order.map((type, i) => {
    const delayed = Math.round(shares[i] * DELAYED_SHARE);
    return { type, prioritized: shares[i] - delayed, delayed, completed: RETENTION.completed, failed: FAILED_PER_QUEUE };
  });
}

/** Runs `tasks` with at most `limit` at once. */
async function pooled(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}

/**
 * `count` waiting jobs of `type`: one sent through the dispatcher as the template, its
 * hash cloned by PRIORITIZED_CLONE with ids from the queue's counter on, the template
 * then removed. Checked through BullMQ: the first clone is the next job a worker would
 * take, in state prioritized, with its own tenant.
 */
async function clonePrioritized(bullpen: Bullpen, type: ShippedJobName, count: number): Promise<void> {
  const queue = bullpen.queues.get(type);
  const { jobId } = await bullpen.dispatcher.dispatch(type, seedPayload(type) as never, { tenant: { orgId: 'org-0' } });
  const hash = await bullpen.redis.hgetall(queue.toKey(jobId));
  await queue.remove(jobId);
  const priority = Number(hash.priority);
  if (!(priority > 0)) throw new Error(`the ${type} template has no priority (${hash.priority})`);
  const fixed = Object.entries(hash)
    .filter(([k]) => k !== 'data' && k !== 'timestamp')
    .flat();
  const fmt = envelopeFormat(JSON.parse(hash.data) as JobEnvelope);
  const keys = [queue.toKey(''), queue.toKey('prioritized'), queue.toKey('pc'), queue.toKey('id'), queue.toKey('marker')];
  const firstId = Number(jobId) + 1;
  const base = Date.now() - (firstId + count) * 10;
  for (let done = 0; done < count; done += CLONE_BATCH) {
    const n = Math.min(CLONE_BATCH, count - done);
    await bullpen.redis.eval(PRIORITIZED_CLONE, keys.length, ...keys, firstId + done, n, base, 10, TENANTS, fmt, priority, ...fixed);
  }
  const [next] = await queue.getJobs(['prioritized'], 0, 0, true);
  const tenant = (next?.data as JobEnvelope | undefined)?.tenant?.orgId;
  const state = await queue.getJobState(String(firstId));
  if (next?.id !== String(firstId) || next.name !== type || tenant !== `org-${firstId % TENANTS}` || state !== 'prioritized') {
    throw new Error(`the cloned ${type} jobs do not read back through BullMQ (next ${next?.id}, state ${state}, tenant ${tenant})`);
  }
}

/** Seeds the backlog `planBacklog(total)` describes and checks every queue's counts through BullMQ. */
export async function seedBacklog(bullpen: Bullpen, total: number, log: (line: string) => void): Promise<Backlog> {
  const queues = planBacklog(total);
  const t0 = performance.now();
  // Finished jobs first: the clones take ids from 100 up, the dispatches then continue from the queue's counter.
  for (const q of queues) {
    const completed = await makeTemplate(bullpen, q.type, seedPayload(q.type), false);
    const failed = await makeTemplate(bullpen, q.type, seedPayload(q.type), true);
    const c = { firstId: 100, count: q.completed, tenants: TENANTS };
    const f = { firstId: 100 + q.completed, count: q.failed, tenants: TENANTS };
    await cloneJobs(bullpen, completed, c);
    await cloneJobs(bullpen, failed, f);
    await verifyClones(bullpen, completed, c, q.completed);
    await verifyClones(bullpen, failed, f, q.failed);
  }
  const finishedMs = performance.now() - t0;
  log(`finished jobs (completed, failed) of ${queues.length} queues cloned in ${(finishedMs / 1_000).toFixed(1)} s`);

  const t1 = performance.now();
  for (const q of queues) await clonePrioritized(bullpen, q.type, q.prioritized);
  log(
    `${queues.reduce((s, q) => s + q.prioritized, 0).toLocaleString('en-US')} waiting jobs cloned in ${((performance.now() - t1) / 1_000).toFixed(1)} s`,
  );
  const t2 = performance.now();
  const tasks: Array<() => Promise<void>> = [];
  for (const q of queues) {
    for (let start = 0; start < q.delayed; start += MAX_DISPATCH_BULK) {
      const size = Math.min(MAX_DISPATCH_BULK, q.delayed - start);
      // Delayed by 1 to 24 hours.
      tasks.push(() =>
        bullpen.dispatcher
          .dispatchBulk(Array.from({ length: size }, (_, j) => item(q.type, start + j, HOUR + ((start + j) % 24) * HOUR)))
          .then(() => undefined),
      );
    }
  }
  await pooled(tasks, IN_FLIGHT);
  log(
    `${queues.reduce((s, q) => s + q.delayed, 0).toLocaleString('en-US')} delayed jobs dispatched in ${((performance.now() - t2) / 1_000).toFixed(1)} s`,
  );
  const unfinishedMs = performance.now() - t1;

  for (const q of queues) {
    const c = await bullpen.queues.get(q.type).getJobCounts('prioritized', 'delayed', 'completed', 'failed', 'wait');
    const want = { prioritized: q.prioritized, delayed: q.delayed, completed: q.completed, failed: q.failed, wait: 0 };
    for (const [state, n] of Object.entries(want)) {
      if (c[state] !== n) throw new Error(`${q.type} holds ${c[state]} ${state} jobs, the plan says ${n}`);
    }
  }
  const seeded = queues.reduce((s, q) => s + q.prioritized + q.delayed + q.completed + q.failed, 0);
  if (seeded !== total) throw new Error(`the plan holds ${seeded} jobs, not ${total}`);
  return { queues, total, ms: { finished: finishedMs, unfinished: unfinishedMs } };
}
