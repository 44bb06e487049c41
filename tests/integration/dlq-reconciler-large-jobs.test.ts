import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { DeadLetterReconciler } from '@/lib/dlq/reconciler';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { PermanentError } from '@/lib/errors/permanent-error';
import { DEFAULT_MAX_PAYLOAD_BYTES, PAYLOAD_PREVIEW_BYTES, previewOf } from '@/lib/jobs/payload-limit';
import { silentLogger } from '@/lib/logging/logger';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { testBullpen } from '../helpers/test-bullpen';
import { useTestRedis } from '../helpers/use-test-redis';

const TYPE = 'tidy' as const;

/** A sink that loses every write, as a worker that dies before its DLQ write would. */
class DroppingSink implements DeadLetterSink {
  readonly dropped: DeadLetterInput[] = [];
  async record(input: DeadLetterInput) {
    this.dropped.push(input);
    return { id: 'dropped', created: true };
  }
}

/**
 * The reconciler over a failed job far larger than BULLPEN_MAX_PAYLOAD_BYTES (issue 22,
 * item 1): it reads the failed set by id and a job's data only within the limit, so the
 * 16 MiB of a plain producer's job never cross the wire to the worker, and the dead letter
 * it writes keeps the size and a bounded preview, as the runtime's own would.
 */
describe('DeadLetterReconciler over failed jobs larger than the limit', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let pool: WorkerPool | undefined;
  let connection: ReturnType<Bullpen['workerConnection']> | undefined;

  beforeEach(() => {
    bullpen = testBullpen(server.redis, { handledTypes: [TYPE] });
  });
  afterEach(async () => {
    await pool?.close(5_000);
    connection?.disconnect();
    pool = undefined;
    connection = undefined;
    await bullpen.close();
  });

  /** Bytes Redis has sent to its clients so far. */
  async function netOutputBytes(): Promise<number> {
    const info = await bullpen.redis.info('stats');
    return Number(/total_net_output_bytes:(\d+)/.exec(info)?.[1]);
  }

  it('records a 16 MiB failed job with a preview, without reading its data', async () => {
    // A plain producer's job, past the limit 32 times over; two-byte characters put the
    // preview's cut inside one.
    const big = { note: 'é'.repeat(8 * 1024 * 1024) };
    const bigJson = JSON.stringify(big);
    const bigBytes = Buffer.byteLength(bigJson);
    expect(bigBytes).toBeGreaterThan(32 * DEFAULT_MAX_PAYLOAD_BYTES);
    const queue = bullpen.queues.get(TYPE);
    const bigJob = await queue.add(TYPE, big, { attempts: 1 });
    const smallJob = await queue.add(TYPE, {}, { attempts: 1 });

    // A worker fails both for good (the big one at pickup, PAYLOAD_TOO_LARGE), and both DLQ writes are lost.
    const sink = new DroppingSink();
    connection = bullpen.workerConnection();
    pool = new WorkerPool({
      connection,
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        [TYPE]: async () => {
          throw new PermanentError('the session store refused the cleanup');
        },
      },
      sink,
      alerter: bullpen.alerter,
      logger: silentLogger,
      types: [TYPE],
    });
    await pool.start();
    const deadline = Date.now() + 30_000;
    while ((await queue.getFailedCount()) < 2) {
      if (Date.now() > deadline) throw new Error(`only ${await queue.getFailedCount()} of 2 jobs failed`);
      await new Promise((r) => setTimeout(r, 25));
    }
    await pool.close(5_000);
    pool = undefined;
    expect(sink.dropped.map((d) => d.jobId).sort()).toEqual([bigJob.id, smallJob.id].sort());
    expect((await bullpen.dlq.counts()).total).toBe(0);

    const reconciler = DeadLetterReconciler.fromBullpen(bullpen, { types: [TYPE] });
    const before = await netOutputBytes();
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 2, recovered: 2 });
    const sent = (await netOutputBytes()) - before;
    // getFailed sent the job's 16 MiB whole; by id, with its size checked first, the sweep
    // gets its fields and 2 KiB of it.
    expect(sent, `${sent} bytes sent to the reconciler`).toBeLessThan(256 * 1024);

    const letter = await bullpen.dlq.getByJob(TYPE, bigJob.id!);
    expect(letter).toMatchObject({
      status: 'pending',
      source: 'reconciler',
      originalJobId: bigJob.id,
      attempts: 1,
      payloadTooLarge: { bytes: bigBytes, limit: DEFAULT_MAX_PAYLOAD_BYTES, preview: previewOf(bigJson) },
    });
    expect(letter?.payload).toBeUndefined();
    expect(letter?.error.message).toMatch(/over the limit of 524,288 bytes \(BULLPEN_MAX_PAYLOAD_BYTES\)/);
    // `{"note":"` then whole characters: the 2,048th byte would split an é, so 2,047 bytes.
    expect(Buffer.byteLength(letter!.payloadTooLarge!.preview)).toBe(PAYLOAD_PREVIEW_BYTES - 1);
    // The letter costs Redis its preview, not the job's data.
    expect(await bullpen.redis.memory('USAGE', bullpen.dlq.keys.entry(letter!.id))).toBeLessThan(64 * 1024);

    // A job within the limit is read whole, and its letter keeps its payload to replay.
    expect(await bullpen.dlq.getByJob(TYPE, smallJob.id!)).toMatchObject({
      status: 'pending',
      source: 'reconciler',
      payload: {},
      error: { message: 'the session store refused the cleanup' },
    });

    // One letter per failure: a second sweep finds both recorded.
    expect(await reconciler.reconcileOnce()).toEqual({ scanned: 2, recovered: 0 });
    expect((await bullpen.dlq.counts()).total).toBe(2);
  }, 120_000);
});
