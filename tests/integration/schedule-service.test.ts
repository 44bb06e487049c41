import { useTestRedis } from '../helpers/use-test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { envelopeSchema } from '@/lib/jobs/envelope';
import type { QueueRegistry } from '@/lib/jobs/queues';
import { Lease } from '@/lib/redis/lease';
import { ScheduleService, type ScheduleServiceOptions } from '@/lib/schedules/schedule-service';
import { capturingLogger } from '../helpers/capturing-logger';
import { testBullpen } from '../helpers/test-bullpen';
import { LARGER_TEST_JOBS, LARGER_TEST_SCHEDULES } from '../helpers/test-jobs';
import { refusal } from '../helpers/refusal';

/**
 * What ScheduleService itself decides, beside schedules.test.ts's walk through BullMQ: the
 * clock and lock options it is given, its log lines, a schedule BullMQ refuses during a
 * bootstrap or a change (the override put back), changes that change nothing, and the
 * words of each refusal. `queues` can be wrapped so one queue's scheduler calls fail or
 * wait, as BullMQ's would.
 */
describe('ScheduleService (lib/schedules/schedule-service.ts)', () => {
  const server = useTestRedis();
  const open: Bullpen[] = [];

  afterEach(async () => {
    for (const b of open.splice(0).reverse()) await b.close();
  });

  type Wrap = (type: string, queue: ReturnType<QueueRegistry['get']>) => ReturnType<QueueRegistry['get']>;

  /** A schedule service over a new prefix (or `prefix`), logging to `lines`; `wrap` changes what `queues.get` returns. */
  function boot(opts: ScheduleServiceOptions & { prefix?: string; wrap?: Wrap } = {}) {
    const { prefix, wrap, ...serviceOpts } = opts;
    const bullpen = testBullpen(server.redis, { jobs: LARGER_TEST_JOBS, schedules: LARGER_TEST_SCHEDULES, ...(prefix ? { prefix } : {}) });
    open.push(bullpen);
    const { logger, lines } = capturingLogger();
    const queues = wrap
      ? (new Proxy(bullpen.queues, {
          get(target, prop, receiver) {
            if (prop === 'get') return (type: string) => wrap(type, target.get(type));
            return Reflect.get(target, prop, receiver);
          },
        }) as QueueRegistry)
      : bullpen.queues;
    const schedules = new ScheduleService(
      { redis: bullpen.redis, keys: bullpen.keys, queues, audit: bullpen.audit, logger },
      { definitions: LARGER_TEST_SCHEDULES, ...serviceOpts },
    );
    return { bullpen, schedules, lines };
  }

  /** A queue whose scheduler writes fail with `message`. */
  const refusing =
    (failType: string, message: string): Wrap =>
    (type, queue) =>
      type !== failType
        ? queue
        : (new Proxy(queue, {
            get(target, prop, receiver) {
              if (prop === 'upsertJobScheduler' || prop === 'removeJobScheduler') return async () => Promise.reject(new Error(message));
              return Reflect.get(target, prop, receiver);
            },
          }) as typeof queue);

  const overrideRaw = (b: Bullpen, name: string) => b.redis.hget(b.keys.tagged('schedules', 'overrides'), name);
  const auditActions = async (b: Bullpen) =>
    (await b.audit.page({ limit: 100 })).entries.map((e) => `${e.action} ${e.target.kind}:${e.target.id}`);

  // 2030-01-01 00:10 UTC: `report` (hourly) fires next at 01:00, `tidy` (every 15 min) at 00:15.
  const T = Date.UTC(2030, 0, 1, 0, 10);
  const HOUR = 3_600_000;

  it('reads the clock it is given for the list, a summary, a preview and a manual run', async () => {
    const { bullpen, schedules } = boot({ clock: () => T });
    const list = await schedules.list();
    expect(list.map((s) => [s.name, s.nextRuns[0]])).toEqual([
      ['tidy', T + 5 * 60_000],
      ['report', T + 50 * 60_000],
    ]);
    expect((await schedules.get('report')).nextRuns).toEqual([1, 2, 3, 4, 5].map((h) => Date.UTC(2030, 0, 1, h)));
    const preview = schedules.preview('0 0 * * * *', 'UTC');
    expect(preview).toMatchObject({ ok: true, nextRuns: [1, 2, 3, 4, 5].map((h) => Date.UTC(2030, 0, 1, h)) });
    expect(schedules.preview('0 0 * * * *', 'UTC', T + HOUR, 2)).toMatchObject({
      nextRuns: [T + 50 * 60_000 + HOUR, T + 50 * 60_000 + 2 * HOUR],
    });

    const jobId = await schedules.triggerNow('report', 'bob');
    expect(jobId).toBe(`manual:report:${T}`);
    const job = await bullpen.queues.get('report').getJob(jobId);
    const envelope = envelopeSchema.parse(job!.data);
    expect(envelope).toMatchObject({ dispatchedAt: T, schedule: 'report', payload: {} });
    expect(envelope.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await schedules.get('report')).lastRun).toMatchObject({ jobId, at: T, trigger: 'manual' });
    const [entry] = (await bullpen.audit.page({ limit: 10 })).entries;
    expect(entry).toMatchObject({
      actor: 'bob',
      action: 'schedule.trigger',
      target: { kind: 'schedule', id: 'report' },
      details: { jobId },
    });
  });

  it('runs the schedules of every type the job table handles, unless told which', async () => {
    const { schedules } = boot();
    const report = await schedules.bootstrap();
    expect(report.schedules.map((s) => [s.name, s.action])).toEqual([
      ['tidy', 'created'],
      ['report', 'created'],
    ]);
  });

  it('logs what a bootstrap applied, or that another instance holds the lock', async () => {
    const a = boot();
    await a.schedules.bootstrap();
    expect(a.lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        applied: true,
        schedules: ['tidy:created', 'report:created'],
        removedStale: [],
        msg: 'schedules applied',
      }),
    );
    const lease = new Lease(a.bullpen.redis, a.bullpen.keys.tagged('schedules', 'lock'), { ttlMs: 10_000 });
    expect(await lease.acquire('stranger')).toBe(true);
    const b = boot({ prefix: a.bullpen.keys.root });
    await expect(b.schedules.bootstrap()).resolves.toEqual({ applied: false, schedules: [], removedStale: [] });
    expect(b.lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        applied: false,
        schedules: 'another instance holds the schedule lock',
        msg: 'schedules applied',
      }),
    );
    await lease.release('stranger');
  });

  it('warns of a repair only when a schedule was put back or a stale one removed', async () => {
    const { bullpen, schedules, lines } = boot();
    await schedules.bootstrap();
    await schedules.pause('tidy', 'alice');
    await schedules.repair();
    // In order, and a paused schedule ("none"): nothing to say.
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);

    const queue = bullpen.queues.get('report');
    const pendingId = `repeat:report:${(await queue.getJobScheduler('report'))!.next}`;
    await bullpen.redis.zrem(queue.toKey('delayed'), pendingId);
    await bullpen.redis.del(queue.toKey(pendingId));
    await schedules.repair();
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({
        repaired: [{ name: 'report', jobType: 'report', action: 'updated' }],
        removedStale: [],
        msg: 'schedules repaired: BullMQ did not hold their state',
      }),
    ]);

    // A scheduler of ours that no definition keeps: removed, and named.
    lines.length = 0;
    const narrowed = boot({ prefix: bullpen.keys.root, definitions: LARGER_TEST_SCHEDULES.filter((d) => d.name !== 'report') });
    await narrowed.schedules.repair();
    expect(narrowed.lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({ repaired: [], removedStale: [{ name: 'report', jobType: 'report' }] }),
    ]);
  });

  it('applies the other schedules when BullMQ refuses one, naming it as failed', async () => {
    const { bullpen, schedules, lines } = boot({ wrap: refusing('tidy', 'BullMQ refused the scheduler') });
    const report = await schedules.bootstrap();
    expect(report.schedules).toEqual([
      { name: 'tidy', jobType: 'tidy', action: 'failed', reason: 'BullMQ refused the scheduler' },
      { name: 'report', jobType: 'report', action: 'created', reason: undefined },
    ]);
    expect(await bullpen.queues.get('report').getJobScheduler('report')).toBeDefined();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        schedule: 'tidy',
        msg: 'could not apply a schedule',
        err: expect.objectContaining({ message: 'BullMQ refused the scheduler' }),
      }),
    );
  });

  it('puts the override back and audits nothing when BullMQ refuses a change', async () => {
    const ok = boot();
    await ok.schedules.bootstrap();
    await ok.schedules.edit('report', { pattern: '0 15 * * * *' }, 'alice');
    const raw = await overrideRaw(ok.bullpen, 'report');
    expect(raw).not.toBeNull();
    const audit = await auditActions(ok.bullpen);

    const failing = boot({ prefix: ok.bullpen.keys.root, wrap: refusing('report', 'BullMQ is read-only') });
    await expect(failing.schedules.edit('report', { pattern: '0 45 * * * *' }, 'bob')).rejects.toThrow('BullMQ is read-only');
    await expect(failing.schedules.pause('report', 'bob')).rejects.toThrow('BullMQ is read-only');
    await expect(failing.schedules.resetToDefault('report', 'bob')).rejects.toThrow('BullMQ is read-only');
    expect(await overrideRaw(ok.bullpen, 'report')).toBe(raw);
    expect(await auditActions(ok.bullpen)).toEqual(audit);
    expect((await ok.bullpen.queues.get('report').getJobScheduler('report'))?.pattern).toBe('0 15 * * * *');
  });

  it('writes and audits nothing for a change that changes nothing', async () => {
    const { bullpen, schedules } = boot();
    await schedules.bootstrap();
    await schedules.resume('report', 'alice');
    await schedules.resetToDefault('report', 'alice');
    expect(await overrideRaw(bullpen, 'report')).toBeNull();
    await schedules.pause('report', 'alice');
    const raw = await overrideRaw(bullpen, 'report');
    await expect(schedules.pause('report', 'bob')).resolves.toMatchObject({ paused: true, editedBy: 'alice' });
    expect(await overrideRaw(bullpen, 'report')).toBe(raw);
    expect(await auditActions(bullpen)).toEqual(['schedule.pause schedule:report']);
  });

  it('holds the schedule lock for the time it is given while it applies', async () => {
    for (const [ttl, within] of [
      [undefined, [20_000, 30_000]],
      [2_000, [1, 2_000]],
    ] as const) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const slow: Wrap = (type, queue) =>
        type !== 'report'
          ? queue
          : (new Proxy(queue, {
              get(target, prop, receiver) {
                if (prop === 'upsertJobScheduler')
                  return async (...args: unknown[]) => {
                    entered();
                    await held;
                    return (target.upsertJobScheduler as (...a: unknown[]) => Promise<unknown>).apply(target, args);
                  };
                return Reflect.get(target, prop, receiver);
              },
            }) as typeof queue);
      const { bullpen, schedules } = boot({ lockTtlMs: ttl, wrap: slow });
      const done = schedules.bootstrap();
      await inside;
      const pttl = await bullpen.redis.pttl(bullpen.keys.tagged('schedules', 'lock'));
      expect(pttl).toBeGreaterThanOrEqual(within[0]);
      expect(pttl).toBeLessThanOrEqual(within[1]);
      release();
      await expect(done).resolves.toMatchObject({ applied: true });
    }
  });

  it('waits up to 5 s for another instance’s lock by default', async () => {
    const { bullpen, schedules } = boot();
    const lease = new Lease(bullpen.redis, bullpen.keys.tagged('schedules', 'lock'), { ttlMs: 10_000 });
    expect(await lease.acquire('stranger')).toBe(true);
    setTimeout(() => void lease.release('stranger'), 400);
    await expect(schedules.edit('report', { pattern: '0 5 * * * *' }, 'bob')).resolves.toMatchObject({ pattern: '0 5 * * * *' });
  });

  it('says why it refuses, naming the schedule', async () => {
    const { bullpen, schedules } = boot({ handledTypes: ['report'], lockWaitMs: 0 });
    const unknown = await refusal(schedules.get('nope'));
    expect(unknown).toMatchObject({ code: 'NOT_FOUND', message: 'No schedule named "nope"', details: { name: 'nope' } });

    const noHandler = await refusal(schedules.triggerNow('tidy', 'bob'));
    expect(noHandler).toMatchObject({
      code: 'NO_HANDLER',
      message: 'Schedule "tidy" runs tidy, which has no handler in this build',
      details: { name: 'tidy' },
    });

    await bullpen.redis.hset(bullpen.keys.tagged('schedules', 'overrides'), 'report', 'not json');
    const inactive = await refusal(schedules.triggerNow('report', 'bob'));
    const reason = (await schedules.get('report')).inactiveReason;
    expect(reason).toEqual(expect.stringMatching(/edit or reset the schedule$/));
    expect(inactive).toMatchObject({
      code: 'INVALID_SCHEDULE',
      message: `Schedule "report" cannot run: ${reason}`,
      details: { name: 'report' },
    });

    const invalid = await refusal(schedules.edit('report', { pattern: 5 } as never, 'bob'));
    expect(invalid.code).toBe('VALIDATION');
    expect(invalid.message).toEqual(expect.stringMatching(/^Invalid schedule edit: .*pattern/s));
    expect((invalid.details as { issues: unknown[] }).issues).toEqual([expect.objectContaining({ path: ['pattern'] })]);

    const lease = new Lease(bullpen.redis, bullpen.keys.tagged('schedules', 'lock'), { ttlMs: 10_000 });
    expect(await lease.acquire('stranger')).toBe(true);
    const conflict = await refusal(schedules.pause('report', 'bob'));
    expect(conflict).toMatchObject({
      code: 'CONFLICT',
      message: 'Schedules are being changed by another instance; "report" was not changed, try again',
      details: { name: 'report' },
    });
    await lease.release('stranger');
  });

  it('shows a last run as recorded when its job’s state cannot be read', async () => {
    let failReads = false;
    const flaky: Wrap = (_type, queue) =>
      new Proxy(queue, {
        get(target, prop, receiver) {
          if (prop === 'getJobState' && failReads) return async () => Promise.reject(new Error('read failed'));
          return Reflect.get(target, prop, receiver);
        },
      }) as typeof queue;
    const { schedules, lines } = boot({ wrap: flaky, clock: () => T });
    const jobId = await schedules.triggerNow('report', 'bob');
    failReads = true;
    expect((await schedules.get('report')).lastRun).toEqual({ jobId, at: T, outcome: 'waiting', trigger: 'manual' });
    expect((await schedules.list()).find((s) => s.name === 'report')!.lastRun).toMatchObject({ jobId, outcome: 'waiting' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        schedule: 'report',
        msg: 'could not read the last run’s job state',
        err: expect.objectContaining({ message: 'read failed' }),
      }),
    );
  });
});
