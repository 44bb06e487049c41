import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { PermanentError } from '@/lib/errors/permanent-error';
import { PAYLOAD_PREVIEW_BYTES } from '@/lib/jobs/payload-limit';
import type { RedisClient } from '@/lib/redis/connection';
import { poolOf } from '../helpers/pool-of';
import { useTestRedis } from '../helpers/use-test-redis';
import { refusal } from '../helpers/refusal';

/**
 * BULLPEN_MAX_PAYLOAD_BYTES (issue 22, item 1): the size of a job's data as BullMQ
 * stores it, checked at dispatch, at a replay and at pickup; and a dead letter that
 * stores its payload once.
 */
describe('the payload size limit', () => {
  const server = useTestRedis();
  const open: Array<{ close(): Promise<unknown> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  const LIMIT = 4096;

  /** Every key under the Bullpen's root, for "nothing was written". */
  async function keysOf(bullpen: Bullpen): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await bullpen.redis.scan(cursor, 'MATCH', `${bullpen.keys.root}*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return keys.sort();
  }

  it('refuses a dispatch over the limit at once, naming the size and the limit, and writes nothing', async () => {
    const bullpen = await server.readyBullpen({ env: { BULLPEN_MAX_PAYLOAD_BYTES: String(LIMIT) } });
    const hook = (blob: string) => ({ webhookId: 'wh-1', event: 'e', payload: { blob } });
    const queue = bullpen.queues.get('notify');

    // The envelope around a payload has a fixed size for the same options (a UUID request
    // id, a 13-digit time): measure it once, then fill a payload to the limit exactly.
    const probe = await bullpen.dispatcher.dispatch('notify', hook(''));
    const overhead = await bullpen.redis.hstrlen(queue.toKey(probe.jobId), 'data');
    const atLimit = await bullpen.dispatcher.dispatch('notify', hook('x'.repeat(LIMIT - overhead)));
    // What was checked is what BullMQ stored: the serialized data, byte for byte.
    expect(await bullpen.redis.hstrlen(queue.toKey(atLimit.jobId), 'data')).toBe(LIMIT);

    const before = await keysOf(bullpen);
    const over = await refusal(bullpen.dispatcher.dispatch('notify', hook('x'.repeat(LIMIT - overhead + 1))));
    expect(over.code).toBe('PAYLOAD_TOO_LARGE');
    expect(over.status).toBe(413);
    expect(over.details).toMatchObject({ bytes: LIMIT + 1, limit: LIMIT });
    expect(over.message).toBe(`The notify job's data is 4,097 bytes of JSON, over the limit of 4,096 bytes (BULLPEN_MAX_PAYLOAD_BYTES)`);
    // Bytes, not characters: é is two bytes of UTF-8.
    const wide = await refusal(bullpen.dispatcher.dispatch('notify', hook('é'.repeat(LIMIT / 2))));
    expect(wide.details).toMatchObject({ bytes: LIMIT + overhead });
    // A bulk dispatch is checked whole before any queue is written.
    const bulk = await refusal(
      bullpen.dispatcher.dispatchBulk([
        { type: 'erase', data: { orgId: 'acme' } },
        { type: 'notify', data: hook('x'.repeat(LIMIT)) },
      ]),
    );
    expect(bulk.code).toBe('PAYLOAD_TOO_LARGE');
    expect(bulk.message).toMatch(/^item 1: The notify job's data is/);
    expect(await keysOf(bullpen)).toEqual(before);
    expect(await queue.count()).toBe(2);
  });

  it("fails a plain producer's job over the limit at pickup, unparsed and for good, with one dead letter that keeps a preview", async () => {
    const bullpen = await server.readyBullpen({ env: { BULLPEN_MAX_PAYLOAD_BYTES: String(LIMIT) } });
    const ran: unknown[] = [];
    const pool = poolOf(bullpen, {
      erase: async (ctx) => {
        ran.push(ctx.data);
      },
    });
    await pool.start();
    open.push({ close: () => pool.close(5_000) });
    const connection = new IORedis({ host: '127.0.0.1', port: server.redis.port, maxRetriesPerRequest: null });
    const plain = new Queue('erase', { connection, prefix: bullpen.keys.queuePrefix('erase') });
    open.push({ close: async () => (await plain.close(), connection.disconnect()) });

    const big = { orgId: 'acme', notes: 'n'.repeat(64 * LIMIT) };
    const bigText = JSON.stringify(big);
    const job = await plain.add('erase', big, { attempts: 5, tenant: { orgId: 'acme' } } as never);
    // At the limit exactly, a bare payload runs.
    const notes = 'n'.repeat(LIMIT - JSON.stringify({ orgId: 'acme', notes: '' }).length);
    const fits = await plain.add('erase', { orgId: 'acme', notes });
    expect(Buffer.byteLength(JSON.stringify(fits.data))).toBe(LIMIT);

    await expect.poll(() => job.getState(), { timeout: 10_000 }).toBe('failed');
    await expect.poll(() => fits.getState(), { timeout: 10_000 }).toBe('completed');
    const failed = await plain.getJob(job.id!);
    // One attempt of five: permanent, never retried.
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toBe(
      `The erase job's data is ${bigText.length.toLocaleString('en')} bytes of JSON, over the limit of 4,096 bytes (BULLPEN_MAX_PAYLOAD_BYTES)`,
    );
    expect(ran).toEqual([{ orgId: 'acme' }]);

    await expect.poll(async () => (await bullpen.dlq.getByJob('erase', job.id!))?.status, { timeout: 10_000 }).toBe('pending');
    const entry = (await bullpen.dlq.getByJob('erase', job.id!))!;
    expect(entry.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', errorClass: 'validation' });
    expect(entry.tenant).toEqual({ orgId: 'acme' });
    expect(entry.payload).toBeUndefined();
    expect(entry.payloadTooLarge).toEqual({ bytes: bigText.length, limit: LIMIT, preview: bigText.slice(0, PAYLOAD_PREVIEW_BYTES) });
    expect(JSON.stringify(entry.jobData)).not.toContain('nnnn');
    expect((await bullpen.dlq.counts()).total).toBe(1);
    // Its hash holds the preview (and the error), not the 256 KiB of data.
    expect(await memoryOf(bullpen.redis, [bullpen.dlq.keys.entry(entry.id)])).toBeLessThan(16 * 1024);
    // Only a preview is left: nothing to replay, nothing enqueued.
    const replay = await refusal(bullpen.dlq.replay(entry.id, { by: 'ops' }));
    expect(replay.code).toBe('VALIDATION');
    expect(replay.message).toMatch(/over the limit of 4,096, and only its start was kept: it cannot be replayed/);
    expect((await bullpen.dlq.get(entry.id))?.status).toBe('pending');
  });

  it('refuses an edited replay over the limit before it claims the dead letter', async () => {
    const bullpen = await server.readyBullpen({ env: { BULLPEN_MAX_PAYLOAD_BYTES: String(LIMIT) } });
    const { id } = await bullpen.dlq.record({
      queue: 'notify',
      jobId: 'edit-1',
      jobType: 'notify',
      jobData: { payload: { webhookId: 'wh-1', event: 'e', payload: {} }, requestId: 'r-1', dispatchedAt: 1 },
      error: { message: 'HTTP 400', errorClass: 'client' },
      attempts: 1,
      failedAt: Date.now(),
      source: 'runtime',
    });
    const err = await refusal(
      bullpen.dlq.replay(id, { by: 'ops', payload: { webhookId: 'wh-1', event: 'e', payload: { blob: 'x'.repeat(LIMIT) } } }),
    );
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    const entry = await bullpen.dlq.get(id);
    expect(entry).toMatchObject({ status: 'pending', replays: [] });
    expect(await bullpen.queues.get('notify').count()).toBe(0);
  });

  it("stores a failed job's payload once: its dead letter costs at most 1.2 times the payload in Redis", async () => {
    const bullpen = await server.readyBullpen();
    const pool = poolOf(bullpen, {
      notify: async () => {
        throw new PermanentError('the receiver refused it');
      },
    });
    await pool.start();
    open.push({ close: () => pool.close(5_000) });
    // Just under the default limit (512 KiB of data), in many fields as real payloads have.
    const rows = Array.from({ length: 4_600 }, (_, i) => ({ id: `row-${i}`, text: `${i}`.padStart(80, 'a') }));
    const payload = { webhookId: 'wh-1', event: 'export.ready', payload: { rows } };
    const payloadBytes = Buffer.byteLength(JSON.stringify(payload));
    expect(payloadBytes).toBeGreaterThan(450 * 1024);
    const { jobId } = await bullpen.dispatcher.dispatch('notify', payload, { tenant: { orgId: 'acme' } });

    await expect.poll(async () => (await bullpen.dlq.getByJob('notify', jobId))?.status, { timeout: 10_000 }).toBe('pending');
    const entry = (await bullpen.dlq.getByJob('notify', jobId))!;
    expect(entry.payload).toEqual(payload);
    expect(entry.jobData).toMatchObject({ payload, tenant: { orgId: 'acme' } });
    // Every key the entry wrote: its hash, its index entries and the DLQ's version.
    const dlqKeys = (await keysOf(bullpen)).filter((k) => k.startsWith(`${bullpen.dlq.keys.base}:`));
    expect(dlqKeys).toContain(bullpen.dlq.keys.entry(entry.id));
    const bytes = await memoryOf(bullpen.redis, dlqKeys);
    expect(bytes / payloadBytes).toBeLessThanOrEqual(1.2);
  });
});

/** MEMORY USAGE of the keys, every field counted (SAMPLES 0). */
async function memoryOf(redis: RedisClient, keys: string[]): Promise<number> {
  let total = 0;
  for (const key of keys) total += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  return total;
}
