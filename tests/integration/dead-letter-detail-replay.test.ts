import { describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { readDeadLetterDetail } from '@/dashboard/dead-letters/dead-letters-read';
import { replayJobId } from '@/lib/dlq/entry';
import { useTestRedis } from '../helpers/use-test-redis';

const server = useTestRedis();
const TYPE = 'notify';

/** Fails job `id` for good as the runtime would: the failed set, then its dead letter. */
async function failForGood(b: Bullpen, id: string, message: string): Promise<string> {
  const queue = b.queues.get(TYPE);
  const at = Date.now();
  await b.redis
    .pipeline()
    .zrem(queue.toKey('prioritized'), id)
    .lrem(queue.toKey('wait'), 0, id)
    .hset(queue.toKey(id), { finishedOn: String(at), failedReason: message })
    .zadd(queue.toKey('failed'), at, id)
    .exec();
  const job = await queue.getJob(id);
  const { id: dlqId } = await b.dlq.record({
    queue: TYPE,
    jobId: id,
    jobType: TYPE,
    jobData: job!.data,
    error: { message, code: 'IDEMPOTENCY_CONFLICT', errorClass: 'conflict' },
    attempts: 1,
    failedAt: at,
    source: 'runtime',
  });
  return dlqId;
}

describe('the dead-letter page after a failed edited replay', () => {
  it('says the replay failed, names whose payload it shows, and never links to itself', async () => {
    const b = await server.readyBullpen();
    const payload = { webhookId: 'wh_1', event: 'invoice', payload: { invoiceId: 77 } };
    const { jobId } = await b.dispatcher.dispatch(TYPE, payload);
    const id = await failForGood(b, jobId, 'HTTP 400');
    const edited = { ...payload, payload: { invoiceId: 78 } };
    await b.dlq.replay(id, { by: 'olivia', payload: edited });
    const replayJob = replayJobId(id, 1);

    // While the replay waits: no failure of it yet.
    const waiting = await readDeadLetterDetail(b, id);
    expect(waiting?.lastReplay).toMatchObject({ n: 1, newJobId: replayJob, edited: true, outcome: 'waiting' });
    // The record holds the edit as soon as the replay is enqueued: a next replay sends it.
    expect(waiting?.payloadFrom).toEqual({ jobId: replayJob, replay: 1, edited: true });
    expect(waiting?.payload.value).toEqual(edited);
    expect(waiting?.latestFailedJobId).toBe(jobId);

    await failForGood(b, replayJob, 'the idempotency key was used with another request');
    const page = await readDeadLetterDetail(b, id);
    expect(page?.status).toBe('pending');
    expect(page?.lastReplay).toMatchObject({
      outcome: 'failed',
      failure: { message: 'the idempotency key was used with another request', code: 'IDEMPOTENCY_CONFLICT' },
    });
    // The payload is the edited one the failed replay sent, and the page says so.
    expect(page?.payload.value).toEqual(edited);
    expect(page?.payloadFrom).toEqual({ jobId: replayJob, replay: 1, edited: true });
    expect(page?.latestFailedJobId).toBe(replayJob);
    // The replay's envelope names this very record: no "Replay of" link to itself.
    expect(page?.envelope.replayOf).toBeUndefined();
  });
});
