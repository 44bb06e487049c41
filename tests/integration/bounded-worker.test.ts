import type { Job } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedWorker, takeEnqueuedData } from '@/lib/runtime/bounded-worker';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * The JSON text of a job's data, as BullMQ read it, goes with the job from the worker's
 * pickup to the processor, which takes it for the attempt (lib/runtime/processor.ts):
 * after that the job no longer holds it, so a finished job that BullMQ's own maps keep
 * alive for a while does not keep its text too (lib/runtime/running-attempts.ts).
 */
describe('BoundedWorker and the enqueued JSON', () => {
  const server = useTestRedis();
  const TYPE = 'notify';
  let worker: BoundedWorker | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  it('hands the text over once: the first take has it, the job holds it no more', async () => {
    const bullpen = await server.readyBullpen();
    const { jobId } = await bullpen.dispatcher.dispatch(TYPE, { webhookId: 'w1', event: 'order.created', payload: { id: 7, note: 'é' } });
    const seen = new Promise<{ job: Job; first?: string; second?: string }>((resolve) => {
      worker = new BoundedWorker(
        TYPE,
        async (job) => resolve({ job, first: takeEnqueuedData(job), second: takeEnqueuedData(job) }),
        { connection: bullpen.workerConnection(), prefix: bullpen.keys.queuePrefix(TYPE) },
        4096,
      );
    });
    const { job, first, second } = await seen;
    expect(job.id).toBe(jobId);
    const stored = await bullpen.redis.hget(`${bullpen.queues.get(TYPE).qualifiedName}:${jobId}`, 'data');
    expect(first).toBe(stored);
    expect(JSON.parse(first as string)).toEqual(job.data);
    expect(second).toBeUndefined();
    // Nothing on the job leads to the text any more.
    expect(Object.getOwnPropertySymbols(job).map((s) => (job as unknown as Record<symbol, unknown>)[s])).not.toContain(first);
  });
});
