/**
 * A million-job backlog for the peer benchmark, spread over the 18 queues as a real
 * one would be: most jobs waiting (BullMQ keeps them in its `prioritized` set, since
 * every Bullpen type has a default priority), some delayed, and each queue's finished
 * jobs up to what its retention keeps (lib/jobs/queues.ts: the last 100 completed, up
 * to 1,000 failed). Waiting and delayed jobs go through the dispatcher's own bulk path
 * (validated envelopes, the type's options), 1,000 jobs per MULTI with a few in flight;
 * completed and failed ones are clones of a job run for real through the runtime
 * (dashboard-seed.ts), so both states are BullMQ's own layout.
 */
import type { Bullpen } from '@/lib/bullpen';
import { RETENTION } from '@/lib/jobs/queues';
import { MAX_DISPATCH_BULK, type BulkItemOf } from '@/lib/jobs/dispatcher';
import { SOURCE_JOB_NAMES, type PayloadInput, type SourceJobName, type SourceJobs } from '@/jobs';
import { cloneJobs, makeTemplate, verifyClones } from './dashboard-seed';

/** Bulk dispatches in flight at once: enough to keep Redis busy while Node builds the next. */
const IN_FLIGHT = 4;
/** Share of each queue's unfinished jobs that are delayed (retries in backoff, jobs sent for later). */
const DELAYED_SHARE = 0.05;
/** Failed jobs kept per queue: half the retention, as if some had been replayed or cleared. */
const FAILED_PER_QUEUE = RETENTION.failed / 2;
const TENANTS = 40;
const HOUR = 3_600_000;

/** A small valid payload of each type; `i` makes the jobs differ. */
const PAYLOADS: { [K in SourceJobName]: (i: number) => PayloadInput<K> } = {
  'memory-consolidation': (i) => ({ workspaceId: `ws-${i % 7}` }),
  'memory-cleanup': () => ({ olderThanDays: 90 }),
  'memory-importance-decay': () => ({ decayFactor: 0.97 }),
  'embedding-batch': (i) => ({ namespace: `docs-${i % 5}`, items: [{ id: `doc-${i}`, text: `Revision ${i} of a support article` }] }),
  'embedding-reindex': (i) => ({ namespace: `docs-${i % 5}` }),
  'trajectory-process': () => ({}),
  'pattern-training': () => ({ epochs: 5 }),
  'ewc-consolidation': () => ({}),
  'session-cleanup': () => ({}),
  'session-archive': () => ({}),
  'index-optimization': () => ({}),
  'index-rebalance': () => ({}),
  'webhook-dispatch': (i) => ({ webhookId: `wh-${i % 50}`, event: 'order.created', payload: { orderId: i, total: 42 } }),
  'slack-sync': (i) => ({ channelId: `C0BENCH${i % 10}` }),
  'quota-check': (i) => ({ orgId: `org-${i % TENANTS}` }),
  'audit-export': (i) => ({ orgId: `org-${i % TENANTS}` }),
  'data-export': (i) => ({ orgId: `org-${i % TENANTS}` }),
  'data-deletion': (i) => ({ orgId: `org-${i % TENANTS}`, reason: 'account closed' }),
};

function item<K extends SourceJobName>(type: K, i: number, delayMs: number): BulkItemOf<SourceJobs> {
  return {
    type,
    data: PAYLOADS[type](i),
    opts: { tenant: { orgId: `org-${i % TENANTS}` }, ...(delayMs > 0 ? { delayMs } : {}) },
  } as BulkItemOf<SourceJobs>;
}

export interface QueueBacklog {
  type: SourceJobName;
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
  const order: SourceJobName[] = [
    'webhook-dispatch',
    'embedding-batch',
    'memory-consolidation',
    'slack-sync',
    ...SOURCE_JOB_NAMES.filter((t) => !['webhook-dispatch', 'embedding-batch', 'memory-consolidation', 'slack-sync'].includes(t)),
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

/** Seeds the backlog `planBacklog(total)` describes and checks every queue's counts through BullMQ. */
export async function seedBacklog(bullpen: Bullpen, total: number, log: (line: string) => void): Promise<Backlog> {
  const queues = planBacklog(total);
  const t0 = performance.now();
  // Finished jobs first: the clones take ids from 100 up, the dispatches then continue from the queue's counter.
  for (const q of queues) {
    const completed = await makeTemplate(bullpen, q.type, PAYLOADS[q.type](0), false);
    const failed = await makeTemplate(bullpen, q.type, PAYLOADS[q.type](0), true);
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
  const tasks: Array<() => Promise<void>> = [];
  for (const q of queues) {
    const n = q.prioritized + q.delayed;
    for (let start = 0; start < n; start += MAX_DISPATCH_BULK) {
      const size = Math.min(MAX_DISPATCH_BULK, n - start);
      tasks.push(async () => {
        // Every 20th job is delayed (1 to 24 hours): the delayed share of DELAYED_SHARE, spread through the queue.
        const items = Array.from({ length: size }, (_, j) => {
          const i = start + j;
          const delayed = i % Math.round(1 / DELAYED_SHARE) === 0 && i / Math.round(1 / DELAYED_SHARE) < q.delayed;
          return item(q.type, i, delayed ? HOUR + (i % 24) * HOUR : 0);
        });
        await bullpen.dispatcher.dispatchBulk(items);
      });
    }
  }
  let done = 0;
  const progress = tasks.map((task) => async () => {
    await task();
    if (++done % 200 === 0) log(`${((done * MAX_DISPATCH_BULK) / 1_000).toFixed(0)}k jobs dispatched`);
  });
  await pooled(progress, IN_FLIGHT);
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
