import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { JobOperations } from '@/dashboard/jobs/job-operations';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { AppError } from '@/lib/errors/app-error';
import { readyClient } from '@/lib/redis/connection';
import { testBullpen } from '../helpers/test-bullpen';

/*
 * A job id is the last part of its hash's key, beside the queue's own keys: the job page
 * for "meta" used to render the queue's meta hash, and a key of another type gave a 500.
 */
let bullpen: Bullpen;
let realId: string;

const server = useTestRedis();
beforeEach(async () => {
  bullpen = testBullpen(server.redis);
  await readyClient(bullpen.redis);
  const queue = bullpen.queues.get('notify');
  // Creates the queue's meta hash, events stream, prioritized set and a job with a log list.
  const [job] = await bullpen.dispatcher.dispatchBulk([{ type: 'notify', data: { webhookId: 'w1', event: 'e', payload: {} } }]);
  realId = job.jobId;
  await queue.addJobLog(realId, 'a line');
});
afterEach(async () => {
  await bullpen.close();
});

describe('job ids that name a queue key', () => {
  it.each(['meta', 'events', 'id', 'wait', 'prioritized', 'failed', 'stalled-check', 'limiter', 'marker', 'pc', 'metrics'])(
    'the job page for %j is not found',
    async (id) => {
      expect(await readJobPage(bullpen, 'notify', id)).toBeNull();
    },
  );

  it('a key of another type (a job’s log list, the events stream) is not found rather than an error', async () => {
    expect(await bullpen.redis.type(`${bullpen.keys.queuePrefix('notify')}:notify:${realId}:logs`)).toBe('list');
    expect(await readJobPage(bullpen, 'notify', `${realId}:logs`)).toBeNull();
    expect(await readJobPage(bullpen, 'notify', '../x')).toBeNull();
    expect(await readJobPage(bullpen, 'notify', '')).toBeNull();
  });

  it('operations on such an id answer NOT_FOUND and change nothing', async () => {
    const ops = new JobOperations(bullpen);
    const metaKey = `${bullpen.keys.queuePrefix('notify')}:notify:meta`;
    const before = await bullpen.redis.hgetall(metaKey);
    for (const id of ['meta', `${realId}:logs`, 'events']) {
      const err = await ops.promote('notify', id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('NOT_FOUND');
    }
    expect(await bullpen.redis.hgetall(metaKey)).toEqual(before);
  });

  it('a real job still reads', async () => {
    const page = await readJobPage(bullpen, 'notify', realId);
    expect(page?.job.id).toBe(realId);
    expect(page?.logs.lines).toEqual(['a line']);
  });
});
