import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { sourceApp } from '@/jobs';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import type { JobTypeName } from '../helpers/source-jobs';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { uniquePrefix } from '../helpers/redis';
import { startTestCluster, type TestCluster } from '../helpers/redis-cluster';

describe('on a Redis Cluster', () => {
  let cluster: TestCluster;
  let bullpen: Bullpen;

  beforeAll(async () => {
    cluster = await startTestCluster();
    bullpen = createBullpen({
      ...sourceApp,
      config: loadConfig({ REDIS_CLUSTER_NODES: cluster.nodes.join(','), LOG_LEVEL: 'silent' }),
      prefix: uniquePrefix('cl'),
      logger: silentLogger,
      handledTypes: ['webhook-dispatch', 'quota-check', 'session-cleanup'],
    });
  }, 60_000);
  afterAll(async () => {
    await bullpen?.close();
    await cluster?.stop();
  });

  it('spreads queues over the shards with one hash tag each, and runs jobs and dead letters', async () => {
    const types: JobTypeName[] = ['webhook-dispatch', 'quota-check', 'session-cleanup'];
    const seen: string[] = [];
    const pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        'webhook-dispatch': async (ctx) => void seen.push(ctx.type),
        'quota-check': async (ctx) => void seen.push(ctx.type),
        'session-cleanup': async () => {
          throw Object.assign(new Error('no such table'), { name: 'PermanentError' });
        },
      },
      sink: bullpen.dlq,
      alerter: bullpen.alerter,
      logger: silentLogger,
    });
    await pool.start();
    try {
      await bullpen.dispatcher.dispatch('webhook-dispatch', { webhookId: 'w', event: 'e', payload: {} });
      await bullpen.dispatcher.dispatch('quota-check', {});
      await bullpen.dispatcher.dispatch('session-cleanup', {});
      const deadline = Date.now() + 20_000;
      while (seen.length < 2 || (await bullpen.dlq.pendingCount()) < 1) {
        if (Date.now() > deadline) throw new Error(`only ${seen.join(',')} ran`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await pool.close(5_000);
    }
    expect(seen.sort()).toEqual(['quota-check', 'webhook-dispatch']);
    const [entry] = (await bullpen.dlq.list({ type: 'session-cleanup' }, { limit: 10 })).entries;
    expect(entry).toMatchObject({ jobType: 'session-cleanup', status: 'pending' });

    // Each queue's keys share one slot; different queues land on different slots.
    const slots = types.map((t) => {
      const key = `${bullpen.keys.queuePrefix(t)}:${t}:meta`;
      const out = spawnSync('redis-cli', ['-p', cluster.nodes[0].split(':')[1], 'cluster', 'keyslot', key], { encoding: 'utf8' });
      return Number(out.stdout.trim());
    });
    expect(new Set(slots).size).toBe(types.length);
  }, 60_000);
});
