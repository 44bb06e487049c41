import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { DeadLetterReconciler } from '@/lib/dlq/reconciler';
import { cancelledBy } from '@/lib/errors/cancelled-error';
import { cancelJob } from '@/dashboard/jobs/job-cancel';
import { spawnFixture, type SpawnedWorker } from '../helpers/spawn-worker';
import { testBullpen } from '../helpers/test-bullpen';
import { useTestRedis } from '../helpers/use-test-redis';

const WEBHOOK = 'notify';
const DELETION = 'erase';

describe('cancel a running job from the dashboard, in another worker process', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let worker: SpawnedWorker;
  let prefix: string;

  beforeAll(async () => {
    bullpen = await testBullpen(server.redis).ready();
    prefix = bullpen.keys.root;
    worker = spawnFixture('cancel-worker.ts', { REDIS_URL: server.redis.url, BULLPEN_PREFIX: prefix, JOB_MS: '30000' });
    await worker.ready;
  }, 60_000);
  afterAll(async () => {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await bullpen.close();
  });

  async function started(type: string, id: string): Promise<void> {
    await waitFor(async () => (await bullpen.redis.hexists(`${prefix}:started`, `${type}:${id}`)) === 1, 10_000);
  }

  it('aborts the handler’s signal within 1 s; the job fails as cancelled, once, with no dead letter, and is audited', async () => {
    // notify: 10 attempts and critical, so a retry or an alert would show.
    const { jobId } = await bullpen.dispatcher.dispatch(WEBHOOK, { webhookId: 'wh-1', event: 'order.created', payload: {} });
    await started(WEBHOOK, jobId);
    const asked = Date.now();
    const result = await cancelJob(bullpen, WEBHOOK, jobId, 'alice');
    expect(result).toEqual({ jobId, outcome: 'cancelled', reached: 1 });

    const aborted = await bullpen.redis.hget(`${prefix}:aborted`, `${WEBHOOK}:${jobId}`);
    const [at, reason] = (aborted ?? '').split(' ');
    expect(reason).toBe('CancelledError');
    expect(Number(at) - asked).toBeLessThan(1_000);

    const queue = bullpen.queues.get(WEBHOOK);
    // No retry follows: still failed, one attempt, after the shortest backoff (1 s) would have passed.
    await new Promise((r) => setTimeout(r, 1_500));
    const job = await queue.getJob(jobId);
    expect(await job!.getState()).toBe('failed');
    expect(job!.attemptsMade).toBe(1);
    expect(job!.failedReason).toBe('Cancelled by alice');
    expect(cancelledBy(job!)).toBe('alice');
    const logs = await queue.getJobLogs(jobId);
    expect(logs.logs.at(-1)).toMatch(/attempt 1\/10 failed \(cancelled\): Cancelled by alice$/);
    expect(await bullpen.dlq.getByJob(WEBHOOK, jobId)).toBeUndefined();
    // Nor does the reconciler take it for a dead letter lost in a crash.
    await DeadLetterReconciler.fromBullpen(bullpen, { types: [WEBHOOK] }).reconcileOnce();
    expect(await bullpen.dlq.getByJob(WEBHOOK, jobId)).toBeUndefined();
    expect(worker.output()).not.toMatch(/critical_dead_letter/);

    const { entries } = await bullpen.audit.page({ limit: 10 });
    expect(entries.find((e) => e.action === 'job.cancel')).toMatchObject({
      actor: 'alice',
      target: { kind: 'job', id: `${WEBHOOK}/${jobId}` },
      details: { outcome: 'cancelled', reached: 1 },
    });
  }, 30_000);

  it('ends a handler that ignores its signal too, with the dead letter its type asks for and no critical alert', async () => {
    const { jobId } = await bullpen.dispatcher.dispatch(DELETION, { orgId: 'acme', reason: 'account closed' });
    await started(DELETION, jobId);
    expect(await cancelJob(bullpen, DELETION, jobId, 'bob')).toMatchObject({ outcome: 'cancelled' });
    const job = await bullpen.queues.get(DELETION).getJob(jobId);
    expect(job!.attemptsMade).toBe(1);
    expect(job!.failedReason).toBe('Cancelled by bob');
    // erase says deadLetterOnCancel: its dead letter, class cancelled; critical, yet no alert.
    await waitFor(async () => (await bullpen.dlq.getByJob(DELETION, jobId)) !== undefined, 5_000);
    expect((await bullpen.dlq.getByJob(DELETION, jobId))!.error).toMatchObject({ errorClass: 'cancelled', message: 'Cancelled by bob' });
    // The alert would follow the worker's "dead letter recorded" line at once; give its log a moment to arrive.
    const { id: dlqId } = (await bullpen.dlq.getByJob(DELETION, jobId))!;
    await waitFor(async () => worker.output().includes(`"dlqId":"${dlqId}","msg":"dead letter recorded"`), 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(worker.output()).not.toMatch(/critical_dead_letter/);
  }, 30_000);

  it('refuses a job that is not running and one that finished meanwhile, changing nothing and auditing nothing', async () => {
    const audited = async () => (await bullpen.audit.page({ limit: 50 })).entries.filter((e) => e.action === 'job.cancel').length;
    const before = await audited();

    // Not running: a delayed job.
    const { jobId: later } = await bullpen.dispatcher.dispatch(
      WEBHOOK,
      { webhookId: 'wh-1', event: 'e', payload: {} },
      { delayMs: 60_000 },
    );
    await expect(cancelJob(bullpen, WEBHOOK, later, 'alice')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Job ${later} is delayed, not running: there is nothing to cancel, and nothing changed`,
    });
    expect(await bullpen.queues.get(WEBHOOK).getJobState(later)).toBe('delayed');

    // Finished meanwhile: active when the cancel looks, done before a worker that hears cancels could stop it
    // (a plain BullMQ worker runs it, as any producer's worker might, and completes it 500 ms later).
    const type = 'tidy';
    const plain = new Worker(type, async () => new Promise((r) => setTimeout(() => r('swept'), 500)), {
      connection: bullpen.workerConnection(),
      prefix: bullpen.keys.queuePrefix(type),
    });
    try {
      const { jobId } = await bullpen.dispatcher.dispatch(type, {});
      await waitFor(async () => (await bullpen.queues.get(type).getJobState(jobId)) === 'active', 5_000);
      await expect(cancelJob(bullpen, type, jobId, 'alice')).rejects.toMatchObject({
        code: 'CONFLICT',
        message: `Job ${jobId} completed before the cancel reached its worker: nothing changed`,
      });
      const job = await bullpen.queues.get(type).getJob(jobId);
      expect(job!.returnvalue).toBe('swept');
      expect(await job!.getState()).toBe('completed');
    } finally {
      await plain.close();
    }
    expect(await audited()).toBe(before);
  }, 30_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
