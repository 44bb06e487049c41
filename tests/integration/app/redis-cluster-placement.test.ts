import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePrefix } from '../../helpers/redis';
import { startTestCluster, type TestCluster } from '../../helpers/redis-cluster';
import { JOB_TYPE_NAMES } from '../../helpers/shipped-jobs';
import { Keyspace } from '@/lib/redis/keys';

/** docs/scaling.md's claim about the shipped application's 18 queues on a three-master cluster. */
describe("the shipped application's queues on a Redis Cluster", () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startTestCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('places them on every master of a three-master cluster', () => {
    // A queue's master is a function of its name alone (its hash tag), so this holds for
    // any prefix: see docs/scaling.md.
    const keys = new Keyspace(uniquePrefix('placement'));
    const byMaster = new Map<string, string[]>(cluster.nodes.map((n) => [n, []]));
    for (const t of JOB_TYPE_NAMES) byMaster.get(cluster.masterOf(cluster.keySlot(`${keys.queuePrefix(t)}:${t}:meta`)))!.push(t);
    expect(cluster.shards()).toHaveLength(3);
    expect(
      [...byMaster.values()].map((queues) => queues.length).every((n) => n > 0),
      JSON.stringify([...byMaster]),
    ).toBe(true);
  });
});
