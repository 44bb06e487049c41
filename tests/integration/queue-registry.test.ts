import IORedis from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readyClient } from '@/lib/redis/connection';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * A BullMQ Queue keeps the outcome of its one start (INFO, then its scripts). The registry
 * must not keep a Queue whose start failed, or every later call on that queue fails until
 * the process restarts (lib/jobs/queues.ts).
 */
describe('the queue registry after a failed start', () => {
  const server = useTestRedis();
  let admin: IORedis;
  const user = 'producer-acl';
  const password = 'registry-test';

  beforeAll(async () => {
    admin = new IORedis(server.redis.port, '127.0.0.1');
    await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all');
  });
  const allowInfo = () => admin.call('ACL', 'SETUSER', user, '+info');
  afterEach(allowInfo);
  afterAll(async () => {
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });

  /** A ready Bullpen signed in as the test's ACL user, whose INFO is then taken away: a Queue started now fails. */
  async function bullpenWithoutInfo() {
    const bullpen = server.bullpen({ redis: { url: `redis://${user}:${password}@127.0.0.1:${server.redis.port}` } });
    await readyClient(bullpen.redis);
    await admin.call('ACL', 'SETUSER', user, '-info');
    return bullpen;
  }

  it("reports the failure to the call that met it, and the table's next call on that type runs on a new queue", async () => {
    const bullpen = await bullpenWithoutInfo();
    await expect(bullpen.dispatcher.dispatch('tidy', {})).rejects.toThrow(/NOPERM/);
    await allowInfo();
    // The registry forgets the queue on the failed start's rejection, a few microtasks on.
    await new Promise((r) => setImmediate(r));
    const { jobId } = await bullpen.dispatcher.dispatch('tidy', {});
    expect(await bullpen.queues.get('tidy').getJobState(jobId)).toMatch(/^(waiting|prioritized)$/);
  });

  it("does the same for another service's queue", async () => {
    const bullpen = await bullpenWithoutInfo();
    await expect(bullpen.queues.foreign('{emails}', 'emails').getJobCounts('waiting')).rejects.toThrow(/NOPERM/);
    await allowInfo();
    await new Promise((r) => setImmediate(r));
    expect(await bullpen.queues.foreign('{emails}', 'emails').getJobCounts('waiting')).toEqual({ waiting: 0 });
  });
});
