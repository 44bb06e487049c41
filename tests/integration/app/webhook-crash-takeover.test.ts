import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { makeBullpen } from '../../helpers/make-bullpen';
import { useTestRedis } from '../../helpers/use-test-redis';
import { spawnFixture, type SpawnedWorker } from '../../helpers/spawn-worker';

/*
 * Webhook deliveries in flight when their worker is killed with SIGKILL (docs/webhooks.md,
 * "Idempotency"): the delivery's idempotency lock belongs to its job, so the job's re-run
 * after the stalled check takes the delivery over at once instead of waiting out the lock
 * (60 s), and sends it again with the same delivery id and idempotency key.
 */
const DELIVERIES = 20;
const LOCK_MS = 2_000;
const STALLED_MS = 2_000;
/** The receiver answers a repeat after this long (it never answers the first send: the worker dies first). */
const SLOW_MS = 1_000;

describe('a worker killed with SIGKILL while its webhook deliveries are in flight', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let receiver: http.Server;
  let url: string;
  /** Arrivals by delivery id: when, and the idempotency key sent. */
  const arrivals = new Map<string, Array<{ at: number; key: string }>>();
  const workers: SpawnedWorker[] = [];

  beforeAll(async () => {
    bullpen = makeBullpen(server.redis);
    receiver = http.createServer((req, res) => {
      const id = String(req.headers['x-delivery-id']);
      const seen = arrivals.get(id) ?? [];
      seen.push({ at: Date.now(), key: String(req.headers['idempotency-key']) });
      arrivals.set(id, seen);
      req.resume();
      // The first send hangs until its worker dies; a repeat answers, slowly.
      if (seen.length > 1) setTimeout(() => res.end('ok'), SLOW_MS);
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await bullpen.close();
  });

  it('takes each delivery over within the lock and stalled intervals, in at most 2 attempts, with the same ids', async () => {
    const env = {
      REDIS_URL: server.redis.url,
      BULLPEN_PREFIX: bullpen.keys.root,
      WORKER_TYPES: 'webhook-dispatch',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      STALLED_INTERVAL_MS: String(STALLED_MS),
      LOCK_DURATION_MS: String(LOCK_MS),
    };
    const hook = await bullpen.webhooks.create({ url, maxFailures: 1_000 });
    const jobIds: string[] = [];
    for (let i = 0; i < DELIVERIES; i++) {
      const { jobId } = await bullpen.dispatcher.dispatch('webhook-dispatch', {
        webhookId: hook.id,
        event: 'drill',
        payload: { n: i },
        deliveryId: `drill-${i}`,
      });
      jobIds.push(jobId);
    }
    const first = spawnFixture('app/production-worker.ts', env);
    workers.push(first);
    await first.ready;
    await waitFor(() => arrivals.size >= DELIVERIES, 30_000);
    // The second worker is up and idle before the kill: what follows is recovery, not start-up.
    const second = spawnFixture('app/production-worker.ts', env);
    workers.push(second);
    await second.ready;
    expect(arrivals.size).toBe(DELIVERIES);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toBeNull();

    const queue = bullpen.queues.get('webhook-dispatch');
    // Without the takeover the re-runs find the dead run's lock (60 s) and retry "in progress elsewhere".
    await waitFor(async () => (await queue.getJobCounts('completed')).completed === DELIVERIES, 20_000);
    const recoveredMs = Date.now() - killedAt;
    // Lock lapse + one stalled check + the slow answer, with room for a loaded 2-core machine.
    expect(recoveredMs).toBeLessThan(LOCK_MS + STALLED_MS + SLOW_MS + 8_000);

    for (const id of jobIds) {
      const job = (await queue.getJob(id))!;
      expect(job.attemptsMade).toBeLessThanOrEqual(2);
      expect(job.returnvalue).toMatchObject({ statusCode: 200, duplicate: false });
    }
    // The request was out when the worker died: the repeat is unavoidable, and carries the same ids.
    for (let i = 0; i < DELIVERIES; i++) {
      const sent = arrivals.get(`drill-${i}`)!;
      expect(sent).toHaveLength(2);
      expect(sent[1].key).toBe(sent[0].key);
      expect(sent[1].key).toBe(`webhook:${hook.id}:drill-${i}`);
    }
    expect(await bullpen.dlq.pendingCount()).toBe(0);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 90_000);
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
