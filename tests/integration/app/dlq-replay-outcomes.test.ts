import { useTestRedis } from '../../helpers/use-test-redis';
import { storesOf } from '../../helpers/shipped-jobs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { BulkRunner } from '@/dashboard/live/bulk-runner';
import { replaySelected, startReplayAll } from '@/dashboard/dead-letters/dead-letters-bulk';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import type { WorkerPool } from '@/lib/runtime/worker-pool';
import { createWebhookDispatchHandler } from '@/jobs/integration/webhook-dispatch';
import { makeBullpen } from '../../helpers/make-bullpen';
import { poolOf } from '../../helpers/pool-of';
import { useStatusReceiver } from '../../helpers/status-receiver';
import { type DlqRun, runDlq } from '../../helpers/dlq-command';

/*
 * Replay selected, replay all and the CLI report what the replays' jobs did within one
 * bounded wait: a replay that fails at once (a disabled webhook) is counted apart from
 * those that completed or still run, never as a success (issue 20, docs/dead-letters.md).
 */
const TYPE = 'webhook-dispatch';
const server = useTestRedis();
const receiver = useStatusReceiver(400);
let bullpen: Bullpen;
let pool: WorkerPool | undefined;

afterEach(async () => {
  await pool?.close(5_000);
  pool = undefined;
  await bullpen.close();
});

/**
 * Two dead letters of a webhook then disabled and one of a webhook that answers 200
 * now, with a worker running: replays of the first two fail at once, the third completes.
 */
async function scene(): Promise<{ disabled: DeadLetterEntry[]; healthy: DeadLetterEntry }> {
  bullpen = makeBullpen(server.redis, { env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  pool = poolOf(bullpen, { [TYPE]: createWebhookDispatchHandler(storesOf(bullpen)) });
  await pool.start();
  receiver.status = 400;
  const off = await bullpen.webhooks.create({ url: receiver.url });
  const on = await bullpen.webhooks.create({ url: receiver.url });
  const letters = [];
  for (const [i, hook] of [off, off, on].entries()) {
    const { jobId } = await bullpen.dispatcher.dispatch(
      TYPE,
      { webhookId: hook.id, event: 'e', payload: { i }, deliveryId: `d-${i}` },
      { attempts: 1 },
    );
    letters.push(await pendingLetter(jobId));
  }
  await bullpen.webhooks.disable(off.id, 'operator switched it off');
  receiver.status = 200;
  return { disabled: letters.slice(0, 2), healthy: letters[2] };
}

async function pendingLetter(jobId: string): Promise<DeadLetterEntry> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const letter = await bullpen.dlq.getByJob(TYPE, jobId);
    if (letter?.status === 'pending') return letter;
    if (Date.now() > deadline) throw new Error('no dead letter');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function cli(...args: string[]): Promise<DlqRun> {
  return runDlq({ redisPort: server.redis.port, prefix: bullpen.keys.root }, args);
}

describe('bulk replays report what their jobs did', () => {
  it('replay selected counts the replays that failed at once apart, within the bounded wait', async () => {
    const { disabled, healthy } = await scene();
    const started = Date.now();
    const out = await replaySelected(
      bullpen,
      [...disabled, healthy].map((l) => ({ id: l.id, replays: 0 })),
      'op',
    );
    expect(Date.now() - started).toBeLessThan(3_000 + 1_500);
    expect(out.done).toHaveLength(3);
    expect(out.outcomes).toMatchObject({ failed: 2, completed: 1, retrying: 0, running: 0 });
    expect(out.outcomes?.failures.map((f) => f.id).sort()).toEqual(disabled.map((l) => l.id).sort());
    expect(out.outcomes?.failures[0].message).toMatch(/is disabled: operator switched it off/);
  });

  it('replay all counts them as failed, and its message says they failed at once', async () => {
    const { disabled } = await scene();
    const bulk = new BulkRunner(bullpen.redis, bullpen.keys, bullpen.logger);
    const { finished } = await startReplayAll(bullpen, bulk, { type: TYPE }, { by: 'op', limit: 100, now: Date.now() });
    const op = await finished;
    expect(op).toMatchObject({ status: 'done', succeeded: 1, failed: 2, skipped: 0 });
    expect(op.message).toMatch(/2 failed at once/);
    expect(op.message).toMatch(/1 completed/);
    expect(op.message).toContain(disabled[0].id.slice(0, 4));
  });

  it('the CLI says so and exits 3, for one and for many', async () => {
    const { disabled, healthy } = await scene();
    const one = await cli('replay', '--id', disabled[0].id);
    expect(one.stdout).toMatch(/failed at once: .*is disabled/);
    expect(one.code).toBe(3);

    // The one that failed at once is pending again: all three are replayed.
    const many = await cli('replay', '--type', TYPE, '--json');
    expect(many.code).toBe(3);
    const result = JSON.parse(many.stdout) as { succeeded: number; outcomes: { failed: number; completed: number } };
    expect(result).toMatchObject({ succeeded: 3, outcomes: { failed: 2, completed: 1 } });
    expect((await bullpen.dlq.get(healthy.id))?.status).toBe('replayed');
  }, 180_000);
});
