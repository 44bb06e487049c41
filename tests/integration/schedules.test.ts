import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { AppError } from '@/lib/errors/app-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import { envelopeSchema } from '@/lib/jobs/envelope';
import { silentLogger } from '@/lib/logging/logger';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import type { ScheduleDefinition } from '@/lib/schedules/schedule-definition';
import { Lease } from '@/lib/redis/lease';
import { ScheduleService, type ScheduleServiceOptions } from '@/lib/schedules/schedule-service';
import { testBullpen } from '../helpers/test-bullpen';
import { LARGER_TEST_CATALOG, LARGER_TEST_JOBS, LARGER_TEST_SCHEDULES as DEFAULT_SCHEDULES } from '../helpers/test-jobs';

type JobTypeName = (typeof LARGER_TEST_JOBS)[number]['name'];
const jobType = (name: JobTypeName) => LARGER_TEST_CATALOG.get(name);
/** The larger test table's two schedules (tidy every 15 minutes, report hourly), on two queues. */
const SCHEDULED = DEFAULT_SCHEDULES.map((s) => s.jobType as JobTypeName);

describe('schedules on BullMQ Job Schedulers', () => {
  const server = useTestRedis();
  const open: Array<{ close(): Promise<unknown> }> = [];

  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  /** A Bullpen (optionally on an existing prefix) and a schedule service on it; every default type handled unless told. */
  function boot(prefix?: string, opts: ScheduleServiceOptions = {}): { bullpen: Bullpen; schedules: ScheduleService } {
    const bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: DEFAULT_SCHEDULES, ...(prefix ? { prefix } : {}) });
    open.push(bullpen);
    return { bullpen, schedules: new ScheduleService(bullpen, { definitions: DEFAULT_SCHEDULES, handledTypes: SCHEDULED, ...opts }) };
  }

  const scheduler = (b: Bullpen, name: string, type: JobTypeName = 'report') => b.queues.get(type).getJobScheduler(name);
  const overrideRaw = (b: Bullpen, name: string) => b.redis.hget(b.keys.tagged('schedules', 'overrides'), name);
  const auditActions = async (b: Bullpen) =>
    (await b.audit.page({ limit: 100 })).entries.map((e) => `${e.action} ${e.target.id} ${e.actor}`);

  async function expectAppError(p: Promise<unknown>, code: AppError['code'], text?: string): Promise<AppError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
    if (text) expect((err as AppError).message).toContain(text);
    return err as AppError;
  }

  it('bootstrap puts the defaults into BullMQ with valid envelopes and does not run them at once', async () => {
    const { bullpen, schedules } = boot();
    const report = await schedules.bootstrap();
    expect(report.applied).toBe(true);
    expect(report.schedules.map((s) => [s.name, s.action])).toEqual(DEFAULT_SCHEDULES.map((s) => [s.name, 'created']));

    for (const def of DEFAULT_SCHEDULES) {
      const s = await scheduler(bullpen, def.name, def.jobType as JobTypeName);
      expect(s).toMatchObject({ key: def.name, name: def.jobType, pattern: def.pattern, tz: 'UTC' });
      const envelope = envelopeSchema.parse(s!.template!.data);
      expect(envelope.schedule).toBe(def.name);
      expect(envelope.payload).toEqual(jobType(def.jobType as JobTypeName).schema.parse(def.data));
      // One pending job per schedule, delayed to its next fire time: nothing runs at boot.
      const counts = await bullpen.queues.get(def.jobType).getJobCounts('delayed', 'waiting', 'prioritized');
      expect(counts).toEqual({ delayed: 1, waiting: 0, prioritized: 0 });
      expect(s!.next).toBeGreaterThan(Date.now());
    }

    const list = await schedules.list();
    const hourly = list.find((s) => s.name === 'report')!;
    expect(hourly).toMatchObject({ active: true, paused: false, edited: false, patternText: 'Every hour', tz: 'UTC' });
    expect(hourly.nextRuns).toHaveLength(5);
    expect(hourly.nextRuns[0]).toBe((await scheduler(bullpen, 'report'))!.next);
    expect(hourly.nextRuns[1] - hourly.nextRuns[0]).toBe(3_600_000);
  });

  it('repair puts back a next run BullMQ lost and leaves schedules in order alone', async () => {
    const { bullpen, schedules } = boot();
    await schedules.bootstrap();
    const queue = bullpen.queues.get('report');
    const next = (await scheduler(bullpen, 'report'))!.next!;
    const pendingId = `repeat:report:${next}`;
    expect(await queue.getJobState(pendingId)).toBe('delayed');

    // Nothing lost: every schedule is left as it is, the pending job untouched.
    const calm = await schedules.repair();
    expect(calm.schedules.map((x) => x.action)).toEqual(DEFAULT_SCHEDULES.map(() => 'unchanged'));
    expect(await queue.getJobState(pendingId)).toBe('delayed');

    // The pending job's write lost (a failover's replication window): the scheduler is
    // still there, but nothing would ever run again.
    await bullpen.redis.zrem(queue.toKey('delayed'), pendingId);
    await bullpen.redis.del(queue.toKey(pendingId));
    expect(await queue.getJobState(pendingId)).toBe('unknown');

    const repaired = await schedules.repair();
    expect(repaired.schedules.filter((x) => x.action !== 'unchanged').map((x) => [x.name, x.action])).toEqual([['report', 'updated']]);
    const after = (await scheduler(bullpen, 'report'))!;
    expect(after.next).toBe(next);
    expect(await queue.getJobState(`repeat:report:${after.next}`)).toBe('delayed');
    expect((await queue.getJobCounts('delayed')).delayed).toBe(1);
    // And it is in order again.
    expect((await schedules.repair()).schedules.every((x) => x.action === 'unchanged')).toBe(true);
  });

  it('keeps an operator’s edit across a restart, over the code’s default, without resetting the next run', async () => {
    const first = boot();
    await first.schedules.bootstrap();
    const edited = await first.schedules.edit(
      'report',
      { pattern: '0  30 * * * *', tz: 'Europe/Berlin', data: { orgId: 'acme' } },
      'alice',
    );
    expect(edited).toMatchObject({
      pattern: '0 30 * * * *',
      tz: 'Europe/Berlin',
      data: { orgId: 'acme' },
      edited: true,
      editedBy: 'alice',
    });
    const before = await scheduler(first.bullpen, 'report');
    expect(before).toMatchObject({ pattern: '0 30 * * * *', tz: 'Europe/Berlin' });
    expect(before!.template!.data.payload).toEqual({ orgId: 'acme' });
    expect(await auditActions(first.bullpen)).toContain('schedule.edit report alice');
    const prefix = first.bullpen.keys.root;
    await first.bullpen.close();

    // A new process on the same Redis and prefix.
    const second = boot(prefix);
    const report = await second.schedules.bootstrap();
    expect(report.schedules.find((s) => s.name === 'report')?.action).toBe('unchanged');
    expect((await second.schedules.get('report')).pattern).toBe('0 30 * * * *');
    const after = await scheduler(second.bullpen, 'report');
    expect(after).toMatchObject({ pattern: '0 30 * * * *', tz: 'Europe/Berlin', next: before!.next });
    expect(await second.bullpen.queues.get('report').getJobCounts('delayed')).toEqual({ delayed: 1 });

    // A deploy that changes the code's default: the override still wins.
    const changedDefaults: ScheduleDefinition[] = DEFAULT_SCHEDULES.map((d) =>
      d.name === 'report' ? { ...d, pattern: '0 0 */2 * * *' } : d,
    );
    const third = boot(prefix, { definitions: changedDefaults });
    await third.schedules.bootstrap();
    const summary = await third.schedules.get('report');
    expect(summary).toMatchObject({ pattern: '0 30 * * * *', defaults: { pattern: '0 0 */2 * * *' } });
    expect((await scheduler(third.bullpen, 'report'))?.pattern).toBe('0 30 * * * *');
  });

  it('refuses an invalid cron, time zone or payload with the reason and changes nothing', async () => {
    const { bullpen, schedules } = boot();
    await schedules.bootstrap();
    await schedules.edit('report', { pattern: '0 15 * * * *' }, 'alice');
    const raw = await overrideRaw(bullpen, 'report');
    const s = await scheduler(bullpen, 'report');
    const audit = await auditActions(bullpen);

    const cron = await expectAppError(
      schedules.edit('report', { pattern: '61 * * * * *' }, 'bob'),
      'INVALID_SCHEDULE',
      'seconds field 61 is out of range 0-59',
    );
    expect(cron.details).toMatchObject({ field: 'seconds' });
    await expectAppError(schedules.edit('report', { pattern: '*/5 * * * *' }, 'bob'), 'INVALID_SCHEDULE', 'got 5');
    await expectAppError(schedules.edit('report', { tz: 'Mars/Olympus_Mons' }, 'bob'), 'INVALID_SCHEDULE', 'unknown time zone');
    await expectAppError(schedules.edit('tidy', { data: { maxAgeMs: -1 } }, 'bob'), 'VALIDATION', 'invalid tidy data');
    await expectAppError(schedules.edit('report', {}, 'bob'), 'VALIDATION');
    await expectAppError(schedules.edit('report', { pattern: '0 0 * * * *', every: 5 } as never, 'bob'), 'VALIDATION');
    await expectAppError(schedules.edit('report', { pattern: '0 0 * * * *' }, ''), 'VALIDATION');
    await expectAppError(schedules.edit('no-such-schedule', { pattern: '0 0 * * * *' }, 'bob'), 'NOT_FOUND');

    expect(await overrideRaw(bullpen, 'report')).toBe(raw);
    expect(await overrideRaw(bullpen, 'tidy')).toBeNull();
    expect(await scheduler(bullpen, 'report')).toEqual(s);
    expect((await scheduler(bullpen, 'tidy', 'tidy'))?.template?.data.payload).toEqual({
      maxAgeMs: 86_400_000,
      batchSize: 500,
    });
    expect(await auditActions(bullpen)).toEqual(audit);
  });

  it('pauses (scheduler and pending job gone, also after a restart), resumes and resets', async () => {
    const { bullpen, schedules } = boot();
    await schedules.bootstrap();
    const queue = bullpen.queues.get('report');

    const paused = await schedules.pause('report', 'alice');
    expect(paused).toMatchObject({ paused: true, edited: true, nextRuns: [] });
    expect(await scheduler(bullpen, 'report')).toBeUndefined();
    expect(await queue.getJobCounts('delayed')).toEqual({ delayed: 0 });

    const restarted = boot(bullpen.keys.root);
    const report = await restarted.schedules.bootstrap();
    expect(report.schedules.find((s) => s.name === 'report')?.action).toBe('none');
    expect(await scheduler(bullpen, 'report')).toBeUndefined();

    const resumed = await schedules.resume('report', 'alice');
    // Nothing but the pause was overridden, so the override is gone.
    expect(resumed).toMatchObject({ paused: false, edited: false, pattern: '0 0 * * * *' });
    expect(resumed.nextRuns).toHaveLength(5);
    expect(await overrideRaw(bullpen, 'report')).toBeNull();
    expect((await scheduler(bullpen, 'report'))?.pattern).toBe('0 0 * * * *');
    expect(await queue.getJobCounts('delayed')).toEqual({ delayed: 1 });

    await schedules.edit('report', { pattern: '0 45 * * * *' }, 'alice');
    await schedules.pause('report', 'alice');
    const reset = await schedules.resetToDefault('report', 'carol');
    expect(reset).toMatchObject({ paused: false, edited: false, pattern: '0 0 * * * *' });
    expect(await overrideRaw(bullpen, 'report')).toBeNull();
    expect((await scheduler(bullpen, 'report'))?.pattern).toBe('0 0 * * * *');

    expect(await auditActions(bullpen)).toEqual([
      'schedule.reset report carol',
      'schedule.pause report alice',
      'schedule.edit report alice',
      'schedule.resume report alice',
      'schedule.pause report alice',
    ]);
  });

  it('triggers a run now with the effective data and records its outcome as the last run', async () => {
    const { bullpen, schedules } = boot();
    await schedules.bootstrap();
    await schedules.edit('report', { data: { orgId: 'acme' } }, 'alice');
    await schedules.pause('report', 'alice');

    const jobId = await schedules.triggerNow('report', 'bob');
    expect(jobId).toMatch(/^manual:report:\d+$/);
    const job = await bullpen.queues.get('report').getJob(jobId);
    const envelope = envelopeSchema.parse(job!.data);
    expect(envelope).toMatchObject({ payload: { orgId: 'acme' }, schedule: 'report' });
    expect(job!.opts.attempts).toBe(jobType('report').attempts);
    expect((await schedules.get('report')).lastRun).toMatchObject({ jobId, outcome: 'waiting', trigger: 'manual' });
    expect(await auditActions(bullpen)).toContain('schedule.trigger report bob');
    // The paused schedule stays paused.
    expect(await scheduler(bullpen, 'report')).toBeUndefined();

    const dead: DeadLetterInput[] = [];
    const pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: {
        report: async (ctx) => {
          if (ctx.data.orgId === 'doomed') throw new PermanentError('org doomed has no usage record');
          return 'ok';
        },
      },
      sink: { record: async (input) => (dead.push(input), { id: input.jobId, created: true }) },
      alerter: bullpen.alerter,
      logger: silentLogger,
      hooks: schedules.runHooks(),
    });
    await pool.start();
    open.push({ close: () => pool.close(5_000) });

    await expect.poll(async () => (await schedules.get('report')).lastRun?.outcome, { timeout: 10_000 }).toBe('completed');

    await schedules.edit('report', { data: { orgId: 'doomed' } }, 'alice');
    await new Promise((r) => setTimeout(r, 5)); // a distinct millisecond for the second manual id
    const failing = await schedules.triggerNow('report', 'bob');
    await expect
      .poll(async () => (await schedules.get('report')).lastRun, { timeout: 10_000 })
      .toMatchObject({
        jobId: failing,
        outcome: 'failed',
        reason: 'org doomed has no usage record',
      });
    // The run's outcome is written when the handler throws, the dead letter a moment later
    // (after the attempt's log line), before BullMQ marks the job failed.
    await expect.poll(() => dead.map((d) => d.jobId), { timeout: 5_000 }).toEqual([failing]);
  });

  it('leaves schedules of unhandled types inactive and removes their stale and orphaned schedulers', async () => {
    const extra: ScheduleDefinition = {
      name: 'old-report',
      jobType: 'report',
      pattern: '0 0 5 * * *',
      tz: 'UTC',
      data: {},
      description: 'gone in the next deploy',
    };
    const first = boot(undefined, { definitions: [...DEFAULT_SCHEDULES, extra] });
    await first.schedules.bootstrap();
    expect(await scheduler(first.bullpen, 'tidy', 'tidy')).toBeDefined();
    expect(await scheduler(first.bullpen, 'old-report')).toBeDefined();
    // Another module's scheduler on the same queue must survive the sweep.
    await first.bullpen.queues.get('report').upsertJobScheduler('someone-else', { pattern: '0 0 1 * * *' }, { name: 'report', data: {} });

    const second = boot(first.bullpen.keys.root, { handledTypes: ['report'] });
    const report = await second.schedules.bootstrap();
    expect(report.schedules.find((s) => s.name === 'tidy')).toMatchObject({
      action: 'removed',
      reason: 'no handler in this build',
    });
    expect(report.removedStale).toEqual([{ name: 'old-report', jobType: 'report' }]);
    expect(await scheduler(second.bullpen, 'tidy', 'tidy')).toBeUndefined();
    expect(await scheduler(second.bullpen, 'old-report')).toBeUndefined();
    expect(await scheduler(second.bullpen, 'someone-else')).toBeDefined();
    expect(await scheduler(second.bullpen, 'report')).toBeDefined();

    const list = await second.schedules.list();
    for (const s of list.filter((x) => x.jobType !== 'report')) {
      expect(s).toMatchObject({ active: false, inactiveReason: 'no handler in this build', nextRuns: [] });
    }
    await expectAppError(second.schedules.triggerNow('tidy', 'bob'), 'NO_HANDLER');
  });

  it('lets one of two concurrent bootstraps apply, and waits for or refuses around a held lock', async () => {
    const a = boot();
    const b = boot(a.bullpen.keys.root);
    await Promise.all([a.schedules.list(), b.schedules.list()]); // both connections ready
    const reports = await Promise.all([a.schedules.bootstrap(), b.schedules.bootstrap()]);
    expect(reports.map((r) => r.applied).sort()).toEqual([false, true]);
    for (const def of DEFAULT_SCHEDULES) {
      const q = a.bullpen.queues.get(def.jobType);
      expect(await q.getJobSchedulersCount()).toBe(1);
      expect(await q.getJobCounts('delayed')).toEqual({ delayed: 1 });
    }

    // Someone else holds the lock: an edit waits its bounded time, then refuses; nothing changes.
    const lockKey = a.bullpen.keys.tagged('schedules', 'lock');
    const stranger = new Lease(a.bullpen.redis, lockKey, { ttlMs: 10_000 });
    const token = 'stranger';
    expect(await stranger.acquire(token)).toBe(true);
    const waiting = boot(a.bullpen.keys.root, { lockWaitMs: 300 });
    const startedAt = Date.now();
    await expectAppError(waiting.schedules.edit('report', { pattern: '0 5 * * * *' }, 'bob'), 'CONFLICT');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
    expect(await overrideRaw(a.bullpen, 'report')).toBeNull();
    expect((await scheduler(a.bullpen, 'report'))?.pattern).toBe('0 0 * * * *');
    expect((await waiting.schedules.bootstrap()).applied).toBe(false);

    // Only the holder's token frees it; then a waiting edit goes through.
    expect(await new Lease(a.bullpen.redis, lockKey).release('not-the-token')).toBe(false);
    expect(await a.bullpen.redis.exists(lockKey)).toBe(1);
    const edit = a.schedules.edit('report', { pattern: '0 5 * * * *' }, 'bob');
    setTimeout(() => void stranger.release(token), 200);
    expect((await edit).pattern).toBe('0 5 * * * *');
    expect(await a.bullpen.redis.exists(lockKey)).toBe(0);
  });
});
