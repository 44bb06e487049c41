import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { LiveCache } from '@/dashboard/live/live-cache';
import { readOverview } from '@/dashboard/queues/queue-overview';
import { readyClient } from '@/lib/redis/connection';
import { testBullpen } from '../helpers/test-bullpen';

let bullpen: Bullpen;

const server = useTestRedis();
afterEach(async () => {
  await bullpen?.close();
});

/** Commands the server has processed so far (INFO stats), read on its own connection. */
async function commandsProcessed(b: Bullpen): Promise<number> {
  const info = (await b.redis.info('stats')) as string;
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1]);
}

describe('live cache', () => {
  it('answers 20 concurrent tabs with one overview read from Redis', async () => {
    bullpen = testBullpen(server.redis);
    await readyClient(bullpen.redis);
    await readOverview(bullpen, Date.now()); // load BullMQ's scripts once

    let t = 1_000;
    const cache = new LiveCache({ now: () => t });
    let loads = 0;
    const load = () => {
      loads++;
      return readOverview(bullpen, Date.now());
    };

    const before = await commandsProcessed(bullpen);
    const once = await readOverview(bullpen, Date.now());
    const oneRead = (await commandsProcessed(bullpen)) - before - 1;

    const start = await commandsProcessed(bullpen);
    const tabs = await Promise.all(Array.from({ length: 20 }, () => cache.get('live:overview', 1_500, load)));
    const used = (await commandsProcessed(bullpen)) - start - 1;
    expect(loads).toBe(1);
    expect(tabs.every((o) => o === tabs[0])).toBe(true);
    expect(tabs[0].queues).toHaveLength(once.queues.length);
    // Twenty tabs cost what one read costs (a few commands of slack for BullMQ's own bookkeeping).
    expect(used).toBeLessThanOrEqual(oneRead + 5);

    t += 1_000;
    await cache.get('live:overview', 1_500, load);
    expect(loads).toBe(1);
    t += 600; // past the TTL
    await cache.get('live:overview', 1_500, load);
    expect(loads).toBe(2);

    cache.invalidate('live:');
    await cache.get('live:overview', 1_500, load);
    expect(loads).toBe(3);
  });

  it('does not keep a failed read, and bounds its size', async () => {
    const cache = new LiveCache({ maxEntries: 3 });
    await expect(cache.get('k', 10_000, () => Promise.reject(new Error('redis down')))).rejects.toThrow('redis down');
    expect(await cache.get('k', 10_000, async () => 'recovered')).toBe('recovered');
    for (let i = 0; i < 10; i++) await cache.get(`k${i}`, 10_000, async () => i);
    expect(cache.size).toBe(3);
  });
});
