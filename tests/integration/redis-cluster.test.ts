import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { clusterBullpen, startTestCluster, type TestCluster } from '../helpers/redis-cluster';

describe('on a Redis Cluster', () => {
  let cluster: TestCluster;
  let bullpen: Bullpen;

  beforeAll(async () => {
    cluster = await startTestCluster();
    bullpen = clusterBullpen(cluster, 'cl', { handledTypes: ['notify', 'sync', 'tidy'] });
  }, 60_000);
  afterAll(async () => {
    await bullpen?.close();
    await cluster?.stop();
  });

  it('spreads queues over the shards with one hash tag each, and runs jobs and dead letters', async () => {
    const types = ['notify', 'sync', 'tidy'] as const;
    const seen: string[] = [];
    const pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        notify: async (ctx) => void seen.push(ctx.type),
        sync: async (ctx) => void seen.push(ctx.type),
        tidy: async () => {
          throw Object.assign(new Error('no such table'), { name: 'PermanentError' });
        },
      },
      sink: bullpen.dlq,
      alerter: bullpen.alerter,
      logger: silentLogger,
    });
    await pool.start();
    try {
      await bullpen.dispatcher.dispatch('notify', { webhookId: 'w', event: 'e', payload: {} });
      await bullpen.dispatcher.dispatch('sync', { channelId: 'C1' });
      await bullpen.dispatcher.dispatch('tidy', {});
      const deadline = Date.now() + 20_000;
      while (seen.length < 2 || (await bullpen.dlq.pendingCount()) < 1) {
        if (Date.now() > deadline) throw new Error(`only ${seen.join(',')} ran`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await pool.close(5_000);
    }
    expect(seen.sort()).toEqual(['notify', 'sync']);
    const [entry] = (await bullpen.dlq.list({ type: 'tidy' }, { limit: 10 })).entries;
    expect(entry).toMatchObject({ jobType: 'tidy', status: 'pending' });

    // Where the queues live, as the cluster reports it: every key of a queue is on one
    // slot, that of its hash tag, stored on the master that serves that slot and on no
    // other; and the three queues live on more than one master.
    const homes = types.map((t) => {
      const pattern = `${bullpen.keys.queuePrefix(t)}:*`;
      const holders = cluster.nodes.filter((n) => cluster.keysOn(n, pattern).length > 0);
      const keys = holders.flatMap((n) => cluster.keysOn(n, pattern));
      return { type: t, holders, keys, slots: [...new Set(keys.map((k) => cluster.keySlot(k)))] };
    });
    for (const home of homes) {
      expect(home.keys.length, home.type).toBeGreaterThan(1);
      expect(home.slots, home.type).toEqual([cluster.keySlot(`{${home.type}}`)]);
      expect(home.holders, home.type).toEqual([cluster.masterOf(home.slots[0])]);
    }
    expect(new Set(homes.map((h) => h.holders[0])).size, JSON.stringify(homes.map((h) => [h.type, h.holders]))).toBeGreaterThan(1);
  }, 60_000);

  it('takes a job from a dispatcher whose cluster connection is still starting', async () => {
    // BullMQ counts a cluster client in the `connect` status as ready and sends INFO at
    // once; a producer client without an offline queue refuses it until `ready`. A queue
    // first used at that moment must still work (lib/redis/connection.ts, clusterOptions).
    const fresh = clusterBullpen(cluster, 'cl-start', { handledTypes: ['sync'] });
    try {
      const statusAtConnect = await new Promise<string>((resolve) => fresh.redis.once('connect', () => resolve(fresh.redis.status)));
      const first = fresh.dispatcher.dispatch('sync', { channelId: 'C1' });
      await expect(first, `dispatched in status ${statusAtConnect}`).resolves.toMatchObject({ type: 'sync', deduplicated: false });
      const { jobId } = await first;
      expect(await fresh.queues.get('sync').getJobState(jobId)).toMatch(/^(waiting|prioritized)$/);
    } finally {
      await fresh.close();
    }
  }, 30_000);
});
