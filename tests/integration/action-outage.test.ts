import { afterEach, describe, expect, it } from 'vitest';
import { TEST_JOBS } from '../helpers/test-jobs';
import { createBullpen, type Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { QueueOperations } from '@/dashboard/queues/queue-operations';
import { isAppError } from '@/lib/errors/app-error';
import { silentLogger } from '@/lib/logging/logger';
import { PRODUCER_COMMAND_TIMEOUT_MS, readyClient } from '@/lib/redis/connection';
import { guardedWrite, WRITE_BOUND_MS, WRITE_GATE_MS } from '@/lib/redis/guarded-write';
import { uniquePrefix } from '../helpers/redis';
import { useOutageRedis } from '../helpers/redis-outage';

/*
 * docs/decisions/0006-connection-roles.md, "Actions never land late": every dashboard
 * action runs through guardedWrite (dashboard/action.ts). A "Pause queue" pressed while
 * Redis hung was applied about 100 s later, when Redis resumed, with no word to the
 * operator; now it fails within the gate, and nothing happens after Redis returns.
 */
const TYPE = 'sync';
/** What a bound may overrun by on a loaded 2-core machine: timers and a promise chain, no I/O. */
const SLACK_MS = 750;
/** How long after Redis resumes a late write would have landed: it runs what sat in the socket at once. */
const SETTLE_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('dashboard actions through a Redis outage', () => {
  const redis = useOutageRedis();
  let bullpen: Bullpen | undefined;
  afterEach(async () => {
    redis.resume();
    await bullpen?.close();
    bullpen = undefined;
  });

  /** The dashboard's Bullpen (producer connection) with the queue's BullMQ Queue started. */
  async function dashboard() {
    bullpen = createBullpen({
      jobs: TEST_JOBS,
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      redis: { host: '127.0.0.1', port: redis.port },
      prefix: uniquePrefix('action-outage'),
      logger: silentLogger,
    });
    await readyClient(bullpen.redis);
    const queue = bullpen.queues.get(TYPE);
    await queue.waitUntilReady();
    return { b: bullpen, queue, ops: new QueueOperations(bullpen) };
  }

  async function outcome(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
    const started = performance.now();
    const err = await p.then(
      () => new Error('the action succeeded during the outage'),
      (e: unknown) => e,
    );
    return { err, ms: performance.now() - started };
  }

  it('the Queue an action uses shares the producer connection: it queues nothing while Redis is away and re-sends nothing after', async () => {
    const { b } = await dashboard();
    // BullMQ's Queue opened no connection of its own: the only client is the producer one.
    const clients = String(await b.redis.call('CLIENT', 'LIST'))
      .trim()
      .split('\n');
    expect(clients).toHaveLength(1);
    expect(b.redis.options).toMatchObject({
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS,
    });
  });

  it('a pause pressed while Redis hangs (SIGSTOP) fails within the gate, and the queue is not paused after Redis resumes', async () => {
    const { b, queue, ops } = await dashboard();
    redis.hang();
    const { err, ms } = await outcome(guardedWrite(b.redis, () => ops.pause(TYPE), { what: `pausing ${TYPE}` }));
    expect(isAppError(err), String(err)).toBe(true);
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE', details: { maybeApplied: false } });
    expect((err as Error).message).toMatch(/nothing was sent and nothing changed \(pausing sync\)/);
    expect(ms).toBeLessThan(WRITE_GATE_MS + SLACK_MS);

    redis.resume();
    await sleep(SETTLE_MS);
    expect(await queue.isPaused()).toBe(false);
    // The connection is usable again, and the same action now goes through.
    await guardedWrite(b.redis, () => ops.pause(TYPE), { what: `pausing ${TYPE}` });
    expect(await queue.isPaused()).toBe(true);
  });

  it('a pause pressed while Redis is killed fails within the gate saying nothing changed', async () => {
    const { b, ops } = await dashboard();
    await redis.kill();
    const { err, ms } = await outcome(guardedWrite(b.redis, () => ops.pause(TYPE), { what: `pausing ${TYPE}` }));
    expect(err).toMatchObject({ code: 'REDIS_UNAVAILABLE', details: { maybeApplied: false } });
    expect((err as Error).message).toMatch(/nothing changed/);
    expect(ms).toBeLessThan(WRITE_GATE_MS + SLACK_MS);
  });

  it('a pause that Redis stops answering after the gate passed is reported as unknown, never as failed', async () => {
    const { b, queue, ops } = await dashboard();
    const boundMs = 1_000;
    const { err, ms } = await outcome(
      guardedWrite(
        b.redis,
        async () => {
          // Redis hangs between the PONG and the write: the write sits in its socket.
          redis.hang();
          await ops.pause(TYPE);
        },
        { what: `pausing ${TYPE}`, boundMs },
      ),
    );
    expect(err).toMatchObject({ code: 'OUTCOME_UNKNOWN', status: 504, details: { maybeApplied: true } });
    expect((err as Error).message).toMatch(/may still take effect .* check before repeating it/);
    expect(ms).toBeLessThan(boundMs + SLACK_MS);
    expect(boundMs).toBeLessThan(WRITE_BOUND_MS);

    // And it does take effect when Redis resumes: which is why the operator was told to check.
    redis.resume();
    await sleep(SETTLE_MS);
    expect(await queue.isPaused()).toBe(true);
  });
});
