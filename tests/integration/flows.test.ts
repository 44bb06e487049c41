import { FlowProducer } from 'bullmq';
import IORedis from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { shippedApp } from '@/jobs/shipped-app';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { parseJobKey } from '@/dashboard/jobs/job-flow';
import { parseQueueFilters } from '@/dashboard/client/queue-filters';
import { readQueuePage } from '@/dashboard/queues/queue-page';
import { useTestRedis } from '../helpers/use-test-redis';

/** A BullMQ flow added with plain `bullmq`, as another service would: a parent that waits on two children. */
describe('flows in the read models', () => {
  const server = useTestRedis(shippedApp);
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
      name: 'quota-check',
      queueName: 'quota-check',
      prefix: bullpen.keys.queuePrefix('quota-check'),
      data: { orgId: `org-${n}` },
    });
    const tree = await flows.add({
      name: 'memory-consolidation',
      queueName: 'memory-consolidation',
      prefix: bullpen.keys.queuePrefix('memory-consolidation'),
      data: { orgId: 'acme' },
      children: [child(1), child(2)],
    });
    const parentId = tree.job.id!;
    const childIds = tree.children!.map((c) => c.job.id!);

    const parents = await readQueuePage(bullpen, 'memory-consolidation', parseQueueFilters({ state: 'waiting-children' }));
    expect(parents.queue.counts['waiting-children']).toBe(1);
    expect(parents.total).toBe(1);
    expect(parents.jobs.map((j) => j.id)).toEqual([parentId]);
    const children = await readQueuePage(bullpen, 'quota-check', parseQueueFilters({ state: 'waiting' }));
    expect(children.queue.counts.waiting).toBe(2);

    const parentPage = await readJobPage(bullpen, 'memory-consolidation', parentId);
    expect(parentPage!.job.state).toBe('waiting-children');
    expect(parentPage!.flow?.parent).toBeUndefined();
    expect(parentPage!.flow?.counts).toEqual({ pending: 2, processed: 0, failed: 0, ignored: 0 });
    expect(parentPage!.flow?.children.map((c) => [c.queue, c.id, c.state, c.dependency, c.known]).sort()).toEqual(
      childIds.map((id) => ['quota-check', id, 'waiting', 'pending', true]).sort(),
    );

    const childPage = await readJobPage(bullpen, 'quota-check', childIds[0]);
    expect(childPage!.flow?.parent).toEqual({ queue: 'memory-consolidation', id: parentId, state: 'waiting-children', known: true });
    expect(childPage!.flow?.children).toEqual([]);

    // A job in no flow has no flow section.
    const { jobId } = await bullpen.dispatcher.dispatch('quota-check', {});
    expect((await readJobPage(bullpen, 'quota-check', jobId))!.flow).toBeUndefined();
  });

  it("reads a job key only in the job table's own layout", () => {
    expect(parseJobKey('bullpen', 'bullpen:{quota-check}:quota-check:17')).toEqual({ queue: 'quota-check', id: '17' });
    expect(parseJobKey('bullpen', 'bullpen:{quota-check}:quota-check:a:b')).toEqual({ queue: 'quota-check', id: 'a:b' });
    for (const key of ['bull:quota-check:17', 'bullpen:{quota-check}:other:17', 'bullpen:{quota-check}:quota-check:', 'bullpenx:{q}:q:1']) {
      expect(parseJobKey('bullpen', key), key).toBeUndefined();
    }
  });
});
