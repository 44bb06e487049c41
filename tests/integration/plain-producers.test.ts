import { Queue } from 'bullmq';
// BullMQ's own add script, as a producer in a language without a BullMQ client runs it (docs/producers.md).
import { addStandardJob } from 'bullmq/dist/esm/scripts/addStandardJob-9.js';
import IORedis from 'ioredis';
import { pack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { JobContext } from '@/lib/runtime/handler';
import { buildHandlers } from '@/lib/jobs/job-definition';
import type { Tenant } from '@/lib/jobs/tenant';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { readDeadLetterDetail, readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { TEST_JOBS } from '../helpers/test-jobs';
import { useTestRedis } from '../helpers/use-test-redis';
import { poolOf } from '../helpers/pool-of';

/**
 * Jobs added with plain `bullmq`, as another service or language would add them
 * (docs/producers.md): no dispatcher, no envelope, the queue's hash-tagged prefix.
 */
describe('plain BullMQ producers', () => {
  const server = useTestRedis();
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  /** A worker for the given types with the test table's handlers, each call seen on its way in. */
  async function worker(bullpen: Bullpen, types: string[]) {
    const real = buildHandlers(TEST_JOBS, undefined);
    const seen: Array<{ type: string; data: unknown; tenant?: Tenant }> = [];
    const handlers = Object.fromEntries(
      types.map((type) => [
        type,
        async (ctx: JobContext<unknown>) => {
          seen.push({ type, data: ctx.data, tenant: ctx.tenant });
          return real[type](ctx);
        },
      ]),
    );
    const pool = poolOf(bullpen, handlers);
    await pool.start();
    open.push({ close: () => pool.close(5_000) });
    return seen;
  }

  /** A plain BullMQ queue on the type's queue, on a connection of its own. */
  function plainQueue(bullpen: Bullpen, type: string): Queue {
    const connection = new IORedis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: null });
    const queue = new Queue(type, { connection, prefix: bullpen.keys.queuePrefix(type) });
    open.push({ close: async () => (await queue.close(), connection.disconnect()) });
    return queue;
  }

  it('runs a bare payload through the type schema, with its defaults and the tenant from the options or the payload', async () => {
    const bullpen = await server.readyBullpen();
    const seen = await worker(bullpen, ['sync', 'erase']);
    const sync = plainQueue(bullpen, 'sync');
    const erase = plainQueue(bullpen, 'erase');
    // `tenant` is not in BullMQ's option types, but BullMQ keeps the options it does not know.
    const a = await sync.add('sync', { channelId: 'C0123' }, { tenant: { orgId: 'acme' } } as never);
    const b = await erase.add('erase', { orgId: 'globex' });

    await expect.poll(() => a.getState(), { timeout: 10_000 }).toBe('completed');
    await expect.poll(() => b.getState(), { timeout: 10_000 }).toBe('completed');
    const fetched = seen.find((s) => s.type === 'sync')!;
    expect(fetched.data).toEqual({ channelId: 'C0123', limit: 200 });
    expect(fetched.tenant).toEqual({ orgId: 'acme' });
    expect(seen.find((s) => s.type === 'erase')?.tenant).toEqual({ orgId: 'globex' });
    expect((await sync.getJob(a.id!))?.returnvalue).toEqual({ fetched: 0 });
    expect(await bullpen.dlq.getByJob('sync', a.id!)).toBeUndefined();
  });

  it('dead-letters an invalid bare payload with the field and the rule; one-click replay asks for an edit, the edit runs', async () => {
    const bullpen = await server.readyBullpen();
    const seen = await worker(bullpen, ['sync']);
    const queue = plainQueue(bullpen, 'sync');
    const job = await queue.add('sync', { channelId: 5 }, { attempts: 3 });

    await expect.poll(async () => (await bullpen.dlq.getByJob('sync', job.id!))?.status, { timeout: 10_000 }).toBe('pending');
    const entry = (await bullpen.dlq.getByJob('sync', job.id!))!;
    expect(entry.error.message).toMatch(/channelId/);
    expect(entry.error.message).toMatch(/expected string, received number/);
    expect(entry.error.errorClass).toBe('validation');
    // Validation is permanent: one attempt of three, and the handler never ran.
    expect(entry.attempts).toBe(1);
    expect(seen).toEqual([]);
    // The dead letter holds the payload as it was sent, not null.
    expect(entry.payload).toEqual({ channelId: 5 });

    await expect(bullpen.dlq.replay(entry.id, { by: 'olivia', expectedReplays: 0 })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { needsEdit: true },
    });
    expect((await bullpen.dlq.get(entry.id))?.status).toBe('pending');
    const replayed = await bullpen.dlq.replay(entry.id, {
      by: 'olivia',
      expectedReplays: 0,
      payload: { channelId: 'C0123' },
    });
    const next = replayed.replays[0].newJobId;
    await expect.poll(() => bullpen.queues.get('sync').getJobState(next), { timeout: 10_000 }).toBe('completed');
  });

  it('dead-letters a bare string, array, number and null once each, and the dashboard shows each as it was sent', async () => {
    const bullpen = await server.readyBullpen();
    const seen = await worker(bullpen, ['sync']);
    const queue = plainQueue(bullpen, 'sync');
    const sent: unknown[] = ['C0123', [{ channelId: 'C0123' }], 42, null];
    const jobs = [];
    for (const data of sent) jobs.push(await queue.add('sync', data, { attempts: 3 }));

    const entries = [];
    for (const [i, job] of jobs.entries()) {
      await expect.poll(async () => (await bullpen.dlq.getByJob('sync', job.id!))?.status, { timeout: 10_000 }).toBe('pending');
      const entry = (await bullpen.dlq.getByJob('sync', job.id!))!;
      // The schema's rule, permanent: one attempt of three, in BullMQ's failed set as well.
      expect(entry.error, JSON.stringify(sent[i])).toMatchObject({ errorClass: 'validation' });
      expect(entry.error.message).toMatch(/Invalid sync payload/);
      expect(entry.error.message).toMatch(/expected object/);
      expect(entry.attempts).toBe(1);
      expect(entry.payload).toEqual(sent[i]);
      expect(await job.getState()).toBe('failed');
      entries.push(entry);
    }
    // No handler ran; one record each, and nothing else.
    expect(seen).toEqual([]);
    expect(new Set(entries.map((e) => e.id)).size).toBe(sent.length);
    expect((await bullpen.dlq.counts()).total).toBe(sent.length);

    // The dashboard: the list has the four rows, each entry's page its payload as sent.
    const list = await readDeadLetterList(bullpen, parseDeadLetterFilters({ type: 'sync' }).filters);
    expect(list.rows.map((r) => r.originalJobId).sort()).toEqual(jobs.map((j) => j.id!).sort());
    for (const [i, entry] of entries.entries()) {
      const detail = (await readDeadLetterDetail(bullpen, entry.id))!;
      expect(detail.payload, JSON.stringify(sent[i])).toMatchObject({ value: sent[i], truncated: false });
      expect(JSON.parse(detail.payloadText!)).toEqual(sent[i]);
      expect(detail.originalJobState).toBe('failed');
      expect(detail.message).toMatch(/expected object/);
    }
  });

  it('refuses a job whose name is not its queue type, before any handler runs', async () => {
    const bullpen = await server.readyBullpen();
    const seen = await worker(bullpen, ['erase']);
    const job = await plainQueue(bullpen, 'erase').add('foo', { orgId: 'acme' }, { attempts: 5 });

    await expect.poll(async () => (await bullpen.dlq.getByJob('erase', job.id!))?.status, { timeout: 10_000 }).toBe('pending');
    const entry = (await bullpen.dlq.getByJob('erase', job.id!))!;
    expect(entry.error.message).toContain('Job name "foo" is not this queue\'s job type "erase"');
    expect(entry.attempts).toBe(1);
    expect(seen).toEqual([]);
  });

  it("takes a job written with raw Redis commands: EVAL of BullMQ's add script, as docs/producers.md shows", async () => {
    const bullpen = await server.readyBullpen();
    const seen = await worker(bullpen, ['erase']);
    const redis = new IORedis({ host: '127.0.0.1', port: server.redis.port });
    open.push({ close: async () => redis.disconnect() });
    // The queue's keys: <BULLPEN_PREFIX>:{<type>}:<type>:<suffix>; the braces keep them in one cluster slot.
    const base = `${bullpen.keys.queuePrefix('erase')}:erase:`;
    const keys = ['wait', 'paused', 'meta', 'id', 'completed', 'delayed', 'active', 'events', 'marker'].map((k) => base + k);
    const args = pack([base, '', 'erase', Date.now(), null, null, null, null, null, null]);
    const opts = pack({ attempts: 3, backoff: { type: 'full-jitter', delay: 10_000 } });
    const id = (await redis.eval(addStandardJob.content, keys.length, ...keys, args, JSON.stringify({ orgId: 'initech' }), opts)) as string;

    const queue = bullpen.queues.get('erase');
    await expect.poll(() => queue.getJobState(id), { timeout: 10_000 }).toBe('completed');
    expect(seen).toEqual([{ type: 'erase', data: { orgId: 'initech' }, tenant: { orgId: 'initech' } }]);
    expect((await queue.getJob(id))?.opts).toMatchObject({ attempts: 3 });
  });
});
