import { FlowProducer } from 'bullmq';
import IORedis from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { parseJobKey } from '@/dashboard/jobs/job-flow';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { useTestRedis } from '../helpers/use-test-redis';

/** A BullMQ flow added with plain `bullmq`, as another service would: a parent that waits on two children. */
describe('flows in the read models', () => {
  const server = useTestRedis();
  const open: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  it('counts and lists a parent waiting on its children, and shows the tree from both ends', async () => {
    const bullpen = await server.readyBullpen();
    const connection = new IORedis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: null });
    const flows = new FlowProducer({ connection });
    open.push(async () => (await flows.close(), connection.disconnect()));
    const child = (n: number) => ({
      name: 'tidy',
      queueName: 'tidy',
      prefix: bullpen.keys.queuePrefix('tidy'),
      data: { batchSize: 100 * n },
    });
    const tree = await flows.add({
      name: 'sync',
      queueName: 'sync',
      prefix: bullpen.keys.queuePrefix('sync'),
      data: { channelId: 'C1' },
      children: [child(1), child(2)],
    });
    const parentId = tree.job.id!;
    const childIds = tree.children!.map((c) => c.job.id!);

    const parents = await readQueuePage(bullpen, 'sync', parseQueueFilters({ state: 'waiting-children' }));
    expect(parents.queue.counts['waiting-children']).toBe(1);
    expect(parents.total).toBe(1);
    expect(parents.jobs.map((j) => j.id)).toEqual([parentId]);
    const children = await readQueuePage(bullpen, 'tidy', parseQueueFilters({ state: 'waiting' }));
    expect(children.queue.counts.waiting).toBe(2);

    const parentPage = await readJobPage(bullpen, 'sync', parentId);
    expect(parentPage!.job.state).toBe('waiting-children');
    expect(parentPage!.flow?.parent).toBeUndefined();
    expect(parentPage!.flow?.counts).toEqual({ pending: 2, processed: 0, failed: 0, ignored: 0 });
    expect(parentPage!.flow?.children.map((c) => [c.queue, c.id, c.state, c.dependency, c.known]).sort()).toEqual(
      childIds.map((id) => ['tidy', id, 'waiting', 'pending', true]).sort(),
    );

    const childPage = await readJobPage(bullpen, 'tidy', childIds[0]);
    expect(childPage!.flow?.parent).toEqual({ queue: 'sync', id: parentId, state: 'waiting-children', known: true });
    expect(childPage!.flow?.children).toEqual([]);

    // A job in no flow has no flow section.
    const { jobId } = await bullpen.dispatcher.dispatch('tidy', {});
    expect((await readJobPage(bullpen, 'tidy', jobId))!.flow).toBeUndefined();
  });

  it("reads a job key only in the job table's own layout", () => {
    expect(parseJobKey('bullpen', 'bullpen:{tidy}:tidy:17')).toEqual({ queue: 'tidy', id: '17' });
    expect(parseJobKey('bullpen', 'bullpen:{tidy}:tidy:a:b')).toEqual({ queue: 'tidy', id: 'a:b' });
    for (const key of ['bull:tidy:17', 'bullpen:{tidy}:other:17', 'bullpen:{tidy}:tidy:', 'bullpenx:{q}:q:1']) {
      expect(parseJobKey('bullpen', key), key).toBeUndefined();
    }
  });
});
