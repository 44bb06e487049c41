import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadLetterReconciler, type ReconcilerOptions } from '@/lib/dlq/reconciler';
import { FAILED_PAGE } from '@/lib/dlq/scripts';
import type { Logger } from '@/lib/logging/logger';
import { Keyspace } from '@/lib/redis/keys';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { type FailedJobSeed, FailedSetsRedis } from '../helpers/failed-sets-redis';
import { MemorySink } from '../helpers/memory-sink';

/** A logger that records its child's bindings and each line. */
function recordingLogger() {
  const lines: Array<[string, unknown, string]> = [];
  const children: unknown[] = [];
  const logger = {
    child: (b: unknown) => (children.push(b), logger),
    warn: (o: unknown, m: string) => void lines.push(['warn', o, m]),
    error: (o: unknown, m: string) => void lines.push(['error', o, m]),
  };
  return { logger: logger as unknown as Logger, lines, children };
}

/**
 * The reconciler's own rules without Redis: its bounds, its one sweep at a time and its
 * timer. Its sweep is asked below over failed sets held in memory (`sweepOf`); against
 * Redis and its Lua script in tests/integration/dlq-reconciler*.test.ts.
 */
function reconciler(opts: Partial<ReconcilerOptions> = {}) {
  return new DeadLetterReconciler({
    sink: { record: async () => ({ id: 'x', created: true }) },
    queues: { jobs: { names: [] } } as never,
    redis: {} as never,
    keys: new Keyspace('t'),
    types: [],
    ...opts,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DeadLetterReconciler’s bounds (lib/dlq/reconciler.ts)', () => {
  it('takes a page of 1 to 1,000 and a budget of at least 3, and says which rule a value broke', () => {
    expect(() => reconciler({ pageSize: 0 })).toThrow('pageSize must be an integer from 1 to 1000, got 0');
    expect(() => reconciler({ pageSize: 1_001 })).toThrow('pageSize must be an integer from 1 to 1000, got 1001');
    expect(() => reconciler({ pageSize: 2.5 })).toThrow(/pageSize must be an integer/);
    expect(() => reconciler({ pageSize: 1, maxPerQueue: 3 })).not.toThrow();
    expect(() => reconciler({ pageSize: 1_000, maxPerQueue: 1_000 })).not.toThrow();
    // A page larger than the budget is read a third of the budget at a time.
    expect(() => reconciler({ pageSize: 10, maxPerQueue: 3 })).not.toThrow();
    expect(() => reconciler({ pageSize: 1, maxPerQueue: 2 })).toThrow(
      'maxPerQueue must be an integer of at least 3 (a page at the head, the page under it, one of a backlog), got 2',
    );
    expect(() => reconciler({ maxPerQueue: 10.5 })).toThrow(/maxPerQueue must be an integer/);
    expect(() => reconciler({ pageSize: 1_000 })).not.toThrow();
  });

  it('logs as its own component', () => {
    const { logger, children } = recordingLogger();
    reconciler({ logger });
    expect(children).toEqual([{ component: 'dlq-reconciler' }]);
  });

  it('runs on an interval of at least a second, and says so', () => {
    const r = reconciler();
    expect(() => r.startReconciler(999)).toThrow('The reconciler interval must be at least 1000 ms, got 999');
    expect(() => r.startReconciler(1_000.5)).toThrow(/at least 1000 ms/);
  });
});

describe('DeadLetterReconciler’s runs', () => {
  it('shares a sweep in progress with a second caller, and starts a new one after it', async () => {
    const r = reconciler();
    const first = r.reconcileOnce();
    expect(r.reconcileOnce()).toBe(first);
    expect(await first).toEqual({ scanned: 0, recovered: 0 });
    const second = r.reconcileOnce();
    expect(second).not.toBe(first);
    await second;
  });

  it('sweeps the queues of the job table when no types are given', async () => {
    const asked: string[] = [];
    const r = reconciler({
      types: undefined,
      queues: {
        jobs: { names: ['a', 'b'] },
        get: (t: string) => {
          asked.push(t);
          throw new Error(`stop at ${t}`);
        },
      } as never,
    });
    await expect(r.reconcileOnce()).rejects.toThrow('stop at a');
    expect(asked).toEqual(['a']);
  });

  it('sweeps at once and every interval, logs a failed sweep without throwing, and stops', async () => {
    vi.useFakeTimers();
    const { logger, lines } = recordingLogger();
    let sweeps = 0;
    const r = reconciler({
      logger,
      types: ['a'],
      queues: {
        jobs: { names: ['a'] },
        get: () => {
          sweeps++;
          throw new Error('redis away');
        },
      } as never,
    });
    const stop = r.startReconciler(1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toBe(1);
    expect(lines).toEqual([['error', { err: expect.any(Error) }, 'dead-letter reconciliation failed; will retry']]);
    await vi.advanceTimersByTimeAsync(999);
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sweeps).toBe(2);
    await stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toBe(2);
  });

  it('stopped during a sweep, waits for it and sets no timer after it', async () => {
    vi.useFakeTimers();
    let release!: (ids: string[]) => void;
    let sweeps = 0;
    const r = reconciler({
      types: ['a'],
      queues: { jobs: { names: ['a'], get: () => ({}) }, get: () => ({ keys: { failed: 'failed' } }) } as never,
      redis: {
        defineCommand: () => undefined,
        hget: async () => null,
        srandmember: async () => [],
        bullpen_lease_acquire: async () => null,
        bullpen_lease_release: async () => 1,
        [FAILED_PAGE.command]: () => {
          sweeps++;
          return new Promise<string[]>((resolve) => {
            release = resolve;
          });
        },
        hdel: async () => 1,
      } as never,
    });
    const stop = r.startReconciler(1_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(sweeps).toBe(1);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release([]);
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sweeps).toBe(1);
  });
});

const RESUME = 't:{dlq}:reconciler-resume';
const TOP = 't:{dlq}:reconciler-top';
const LOCK = 't:{dlq}:reconciler-lock:mail';
const UNWRITTEN = 't:{dlq}:reconciler-unwritten:mail';
const FAILED = 'bull:mail:failed';
const T0 = 1_800_000_000_000;

/** Jobs j<from>..j<to> of one queue, j<to> the newest, failed a second apart. */
function failures(from: number, to: number): FailedJobSeed[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ id: `j${from + i}`, finishedOn: T0 + (from + i) * 1_000 }));
}

/**
 * A sweep over failed sets held in memory (tests/helpers/failed-sets-redis.ts), into a
 * MemorySink whose writes for the job ids in `refused` fail. Queue `hook`'s type keeps
 * a cancelled job's dead letter, `mail`'s does not.
 */
function sweepOf(opts: Partial<ReconcilerOptions> = {}) {
  const redis = new FailedSetsRedis();
  const dlq = new MemorySink();
  const refused = new Set<string>();
  /** How many of the next writes fail, whatever their job. */
  const outage = { writes: 0 };
  const { logger, lines } = recordingLogger();
  /** A reconciler over these failed sets and this DLQ, as each worker process has its own. */
  const another = () =>
    new DeadLetterReconciler({
      sink: {
        record: (input) => {
          if (!refused.has(input.jobId) && outage.writes === 0) return dlq.record(input);
          if (!refused.has(input.jobId)) outage.writes--;
          return Promise.reject(new Error('the DLQ refused the write'));
        },
      },
      queues: {
        jobs: { names: ['mail', 'hook'], get: (type: string) => ({ deadLetterOnCancel: type === 'hook' }) },
        get: (type: string) => redis.queue(type),
      } as never,
      redis: redis as never,
      keys: new Keyspace('t'),
      logger,
      types: ['mail'],
      ...opts,
    });
  const reconciler = another();
  /** Dead letters the runtime wrote when the jobs failed. */
  const recordedAtFailure = async (...ids: string[]) => {
    for (const jobId of ids) await dlq.record({ queue: 'mail', jobId, source: 'runtime' } as DeadLetterInput);
  };
  /** The jobs whose dead letter the sweep wrote, in the order it wrote them. */
  const recovered = () => dlq.recorded.filter((l) => l.source === 'reconciler').map((l) => l.jobId);
  /** The pages read from the failed set, as [the job each starts after ('head', or a time alone), its size]. */
  const pages = () => redis.callsOf('page').map(([, count, score, id]) => [id || score || 'head', count]);
  return { redis, dlq, refused, outage, lines, reconciler, another, recordedAtFailure, recovered, pages };
}

const ids = (from: number, to: number) => failures(from, to).map((j) => j.id);

describe('DeadLetterReconciler’s sweep of a failed set (held in memory)', () => {
  it('writes the missing dead letters newest first, stops at the first page recorded in full, and logs each page it recovered', async () => {
    const s = sweepOf({ pageSize: 5 });
    s.redis.fail('mail', ...failures(1, 12));
    await s.recordedAtFailure(...ids(1, 9));
    // The last run's head check began at j9.
    s.redis.hash(TOP).set('mail', `${T0 + 9_000}:j9`);
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 10, recovered: 3 });
    expect(s.recovered()).toEqual(['j12', 'j11', 'j10']);
    expect(s.dlq.get('mail', 'j12')).toMatchObject({ queue: 'mail', jobType: 'mail', source: 'reconciler', failedAt: T0 + 12_000 });
    // Past j9, j7..j3 were recorded in full: j2 and j1 are left to the runs before, and there is no backlog.
    expect(s.pages()).toEqual([
      ['head', 5],
      ['j8', 5],
    ]);
    expect(s.redis.hash(RESUME).size).toBe(0);
    expect(s.redis.hash(TOP).get('mail')).toBe(`${T0 + 12_000}:j12`);
    expect(s.lines).toEqual([['warn', { queue: 'mail', recovered: 3 }, 'recovered dead letters missing from the DLQ']]);
  });

  it('looks at no more than maxPerQueue jobs a run, and works through a backlog run by run from where the last stopped', async () => {
    const s = sweepOf({ pageSize: 3, maxPerQueue: 10 });
    s.redis.fail('mail', ...failures(1, 28));
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 10, recovered: 10 });
    // The last page asks only for what is left of the budget.
    expect(s.pages()).toEqual([
      ['head', 3],
      ['j26', 3],
      ['j23', 3],
      ['j20', 1],
    ]);
    expect(s.redis.hash(RESUME).get('mail')).toBe(`${T0 + 19_000}:j19`);
    const runs = [];
    for (let run = 2; run <= 4; run++) runs.push(await s.reconciler.reconcileOnce());
    // Each run checks the head (3), then goes on after the job the last one stopped at.
    expect(runs).toEqual([
      { scanned: 10, recovered: 7 },
      { scanned: 10, recovered: 7 },
      { scanned: 7, recovered: 4 },
    ]);
    expect(s.recovered()).toEqual(ids(1, 28).reverse());
    // The last run read a short page, which is the end: no read past it, and no resume point left.
    expect(s.pages().slice(-2)).toEqual([
      ['j5', 3],
      ['j2', 3],
    ]);
    expect(s.redis.hash(RESUME).has('mail')).toBe(false);
  });

  it('walks on past recorded pages after resuming, to a missing letter deep in the backlog', async () => {
    const s = sweepOf({ pageSize: 2, maxPerQueue: 20 });
    s.redis.fail('mail', ...failures(1, 12));
    await s.recordedAtFailure(...ids(1, 12).filter((id) => id !== 'j3'));
    s.redis.hash(TOP).set('mail', `${T0 + 12_000}:j12`);
    s.redis.hash(RESUME).set('mail', `${T0 + 9_000}:j9`);
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 10, recovered: 1 });
    expect(s.recovered()).toEqual(['j3']);
    expect(s.redis.hash(RESUME).has('mail')).toBe(false);
  });

  it('keeps the backlog’s resume point when the budget went on new failures at the head', async () => {
    const s = sweepOf({ pageSize: 2, maxPerQueue: 6 });
    s.redis.fail('mail', ...failures(1, 12));
    await s.recordedAtFailure(...ids(1, 8).filter((id) => id !== 'j2'));
    s.redis.hash(TOP).set('mail', `${T0 + 8_000}:j8`);
    s.redis.hash(RESUME).set('mail', `${T0 + 6_000}:j6`);
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 4 });
    expect(s.redis.hash(RESUME).get('mail')).toBe(`${T0 + 6_000}:j6`);
    await s.reconciler.reconcileOnce();
    await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j12', 'j11', 'j10', 'j9', 'j2']);
  });

  it('resumes after every later failure when its job has left the set, scanning its ties again rather than skipping one', async () => {
    // A point written before it named its job holds only the time (the second round). That
    // is no job's id, even where a producer names its jobs by a time, as the oldest one here.
    const namedByTime = String(T0 + 5_000);
    for (const point of [`${T0 + 5_000}:j4`, `${T0 + 5_000}`]) {
      const s = sweepOf({ pageSize: 2 });
      // j5, j4 and j3 failed in the same millisecond; j4, where the last run stopped, was retried since.
      s.redis.fail('mail', ...failures(6, 8), ...['j5', 'j3'].map((id) => ({ id, finishedOn: T0 + 5_000 })), ...failures(1, 2));
      s.redis.fail('mail', { id: namedByTime, finishedOn: T0 });
      await s.recordedAtFailure('j8', 'j7', 'j6', 'j5', 'j2', 'j1', namedByTime);
      s.redis.hash(TOP).set('mail', `${T0 + 8_000}:j8`);
      s.redis.hash(RESUME).set('mail', point);
      expect(await s.reconciler.reconcileOnce(), point).toEqual({ scanned: 7, recovered: 1 });
      expect(s.recovered()).toEqual(['j3']);
      expect(s.redis.callsOf('zcount')).toEqual([[FAILED, `(${T0 + 5_000}`, '+inf']]);
      expect(s.pages()).toEqual([
        ['head', 2],
        [point.includes(':') ? 'j4' : point, 2],
        ['j3', 2],
        ['j1', 2],
      ]);
    }
  });

  it('reads an empty failed set once, and drops a resume point left over', async () => {
    const s = sweepOf();
    s.redis.hash(RESUME).set('mail', `${T0}:j1`);
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 0, recovered: 0 });
    expect(s.redis.calls).toEqual([
      ['lease-acquire', LOCK, expect.any(String)],
      ['hget', TOP, 'mail'],
      ['page', FAILED, 100, '', ''],
      ['srandmember', UNWRITTEN, 100],
      ['hdel', RESUME, 'mail'],
      ['lease-release', LOCK, expect.any(String)],
    ]);
  });

  it('reads a page’s jobs together, in groups of at most 8 MiB of data', async () => {
    const cases = [
      { maxPayloadBytes: 1024 * 1024, jobs: 20, groups: [8, 8, 4] },
      { maxPayloadBytes: undefined, jobs: 40, groups: [16, 16, 8] },
      // Over 8 MiB a job is read on its own.
      { maxPayloadBytes: 16 * 1024 * 1024, jobs: 3, groups: [1, 1, 1] },
    ];
    for (const { maxPayloadBytes, jobs, groups } of cases) {
      const s = sweepOf({ pageSize: 100, maxPayloadBytes });
      s.redis.fail('mail', ...failures(1, jobs));
      expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: jobs, recovered: jobs });
      expect(s.redis.readBatches, `limit ${maxPayloadBytes}`).toEqual(groups);
      expect(s.redis.callsOf('read')).toEqual(
        ids(1, jobs)
          .reverse()
          .map((id) => [id]),
      );
    }
  });

  it('skips a job that left the failed set between its page’s read and its own', async () => {
    // One page, read in groups of two jobs: the whole first group is gone when it is read.
    const s = sweepOf({ maxPayloadBytes: 4 * 1024 * 1024 });
    s.redis.fail('mail', ...failures(1, 6));
    s.redis.leavesBeforeRead('mail', 'j6');
    s.redis.leavesBeforeRead('mail', 'j5');
    s.redis.leavesBeforeRead('mail', 'j2');
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 3, recovered: 3 });
    expect(s.recovered()).toEqual(['j4', 'j3', 'j1']);
  });

  it('gives an operator’s cancelled job a dead letter only when its type asks for one', async () => {
    const s = sweepOf({ types: ['mail', 'hook'] });
    const cancelled = {
      failedReason: 'Cancelled by ops@example.test',
      stacktrace: ['CancelledError: Cancelled by ops@example.test\n    at abort'],
    };
    // A handler's own message that reads the same is not a cancel: its stack names another error.
    const lookalike = { failedReason: 'Cancelled by ops@example.test', stacktrace: ['Error: Cancelled by ops@example.test\n    at send'] };
    for (const type of ['mail', 'hook']) {
      s.redis.fail(type, { id: 'c1', finishedOn: T0 + 2_000, ...cancelled }, { id: 'e1', finishedOn: T0 + 1_000, ...lookalike });
    }
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 4, recovered: 3 });
    expect(s.dlq.recorded.map((l) => `${l.queue}/${l.jobId}`)).toEqual(['mail/e1', 'hook/c1', 'hook/e1']);
  });

  it('logs a dead letter it could not write, goes on past its page, and writes it on the next run', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 6));
    await s.recordedAtFailure('j5', 'j4', 'j2', 'j1');
    s.refused.add('j6');
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 1 });
    expect(s.recovered()).toEqual(['j3']);
    expect(s.lines[0]).toEqual(['error', { err: expect.any(Error), queue: 'mail', jobId: 'j6' }, 'could not record a failed job']);
    expect((s.lines[0][1] as { err: Error }).err.message).toBe('the DLQ refused the write');
    expect([...s.redis.members(UNWRITTEN)]).toEqual(['j6']);
    s.refused.clear();
    // The head check writes it (j6 is the newest job the last run saw); the list's try finds it written.
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 5, recovered: 1 });
    expect(s.recovered()).toEqual(['j3', 'j6']);
    expect(s.redis.members(UNWRITTEN).size).toBe(0);
  });

  it('writes on a later run a letter it could not write under a newer page, whatever pages of recorded failures land on top', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 4));
    await s.recordedAtFailure(...ids(1, 4));
    await s.reconciler.reconcileOnce();
    // j7 and j6 missing, written by the sweep; j5's write fails (a DLQ timeout), on the page
    // that holds j4, where the last run began.
    s.redis.fail('mail', ...failures(5, 7));
    s.refused.add('j5');
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 2 });
    s.refused.clear();
    s.redis.fail('mail', ...failures(8, 9));
    await s.recordedAtFailure('j8', 'j9');
    await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j7', 'j6', 'j5']);
  });

  it('writes on a later run a letter of the backlog it could not write, past the resume point it went on to', async () => {
    const s = sweepOf({ pageSize: 2, maxPerQueue: 6 });
    s.redis.fail('mail', ...failures(1, 12));
    await s.recordedAtFailure(...ids(1, 12).filter((id) => id !== 'j3'));
    s.refused.add('j3');
    // The first runs read to the end, one budget at a time; j3's write fails on the second.
    await s.reconciler.reconcileOnce();
    await s.reconciler.reconcileOnce();
    s.refused.clear();
    for (let run = 0; run < 4; run++) await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j3']);
  });

  it('tries at most a page of its list a run, keeps a letter that still fails there, and drops a job that left the set', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 3));
    await s.recordedAtFailure('j2', 'j3');
    // j1's write fails every time; j9 left the failed set (retried, removed) since a run could
    // not write its letter; j2's letter was written since.
    s.refused.add('j1');
    await s.reconciler.reconcileOnce();
    for (const id of ['j9', 'j2']) s.redis.members(UNWRITTEN).add(id);
    await s.reconciler.reconcileOnce();
    expect(s.redis.callsOf('srandmember').at(-1)).toEqual([UNWRITTEN, 2]);
    expect([...s.redis.members(UNWRITTEN)]).toEqual(['j1', 'j2']);
    await s.reconciler.reconcileOnce();
    expect([...s.redis.members(UNWRITTEN)]).toEqual(['j1']);
    expect(s.lines.filter(([, , msg]) => msg === 'recovered dead letters a sweep could not write before')).toEqual([]);
    expect(s.lines.filter(([, , msg]) => msg === 'could not record a failed job').map(([, f]) => (f as { jobId: string }).jobId)).toEqual([
      'j1',
      'j1',
      'j1',
    ]);
    s.refused.clear();
    // The head check stops at the recorded head; the list's try writes j1.
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 3, recovered: 1 });
    expect(s.recovered()).toEqual(['j1']);
    expect(s.redis.members(UNWRITTEN).size).toBe(0);
    expect(s.lines.at(-1)).toEqual(['warn', { queue: 'mail', recovered: 1 }, 'recovered dead letters a sweep could not write before']);
  });

  it('moves neither its head job nor its resume point when it cannot keep the list, and writes the letter on the next run', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 4));
    await s.recordedAtFailure(...ids(1, 4));
    await s.reconciler.reconcileOnce();
    s.redis.fail('mail', ...failures(5, 6));
    s.refused.add('j5');
    const sadd = s.redis.sadd.bind(s.redis);
    s.redis.sadd = async () => {
      throw new Error('Connection is closed.');
    };
    await expect(s.reconciler.reconcileOnce()).rejects.toThrow('Connection is closed.');
    expect(s.redis.hash(TOP).get('mail')).toBe(`${T0 + 4_000}:j4`);
    s.redis.sadd = sadd;
    s.refused.clear();
    await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j6', 'j5']);
  });

  it('on its timer, logs a sweep that recovered letters with its counts, and nothing for one that did not', async () => {
    vi.useFakeTimers();
    const s = sweepOf();
    s.redis.fail('mail', ...failures(1, 1));
    const stop = s.reconciler.startReconciler(1_000);
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1_000);
    await stop();
    expect(s.redis.callsOf('page')).toHaveLength(2);
    expect(s.lines).toEqual([
      ['warn', { queue: 'mail', recovered: 1 }, 'recovered dead letters missing from the DLQ'],
      ['warn', { scanned: 1, recovered: 1 }, 'reconciler recovered missing dead letters'],
    ]);
  });
});

/** An event another client makes while sweeps run: none, a job leaving the set at a rank, or new failures on top. */
type Change =
  | { kind: 'none' }
  | { kind: 'leave'; rank: number }
  | { kind: 'fail'; count: number; recorded: boolean }
  | { kind: 'outage'; writes: number };

describe('DeadLetterReconciler’s progress through a changing failed set', () => {
  it('works through a backlog whatever the page and the budget, with the head recorded or a new failure on it each run', async () => {
    // A budget of one page, and of two pages with one new failure on top of each run: the head
    // check spent it all, on a recorded page or on a new failure and the recorded page under it.
    for (const { pageSize, maxPerQueue, newEachRun } of [
      { pageSize: 10, maxPerQueue: 10, newEachRun: false },
      { pageSize: 10, maxPerQueue: 20, newEachRun: true },
    ]) {
      const s = sweepOf({ pageSize, maxPerQueue });
      s.redis.fail('mail', ...failures(1, 40));
      for (let run = 1; run <= 12; run++) {
        if (newEachRun) s.redis.fail('mail', { id: `n${run}`, finishedOn: T0 + 100_000 + run * 1_000 });
        const r = await s.reconciler.reconcileOnce();
        expect(r.scanned).toBeLessThanOrEqual(maxPerQueue);
      }
      const missing = ids(1, 40).filter((id) => !s.dlq.get('mail', id));
      expect(missing, `page ${pageSize}, budget ${maxPerQueue}`).toEqual([]);
    }
  });

  it('misses no job when newer ones leave the failed set mid-sweep, even under a page of new recorded failures', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 6));
    // j6 and j5, the first page, are retried from the failed tab once they are read, before the next page.
    s.redis.onCall = (command) => {
      if (command === 'page' && s.redis.callsOf('read').length === 2 && s.redis.failedIds('mail').includes('j6')) {
        s.redis.remove('mail', 'j6');
        s.redis.remove('mail', 'j5');
      }
    };
    await s.reconciler.reconcileOnce();
    // A page of new failures, their letters written by the runtime, lands on top before the next run.
    s.redis.fail('mail', ...failures(7, 8));
    await s.recordedAtFailure('j7', 'j8');
    await s.reconciler.reconcileOnce();
    await s.reconciler.reconcileOnce();
    expect(s.recovered().sort()).toEqual(ids(1, 6).sort());
  });
  it('leaves a queue another process is sweeping, and sweeps it once that one is done', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 6));
    const other = s.another();
    const [first, second] = await Promise.all([s.reconciler.reconcileOnce(), other.reconcileOnce()]);
    expect(first).toEqual({ scanned: 6, recovered: 6 });
    expect(second).toEqual({ scanned: 0, recovered: 0 });
    expect(s.redis.leases.size).toBe(0);
    expect(await other.reconcileOnce()).toEqual({ scanned: 2, recovered: 0 });
  });

  it('writes no resume point or head job once its lease was taken over mid-sweep, and says so', async () => {
    const s = sweepOf({ pageSize: 2, maxPerQueue: 6 });
    s.redis.fail('mail', ...failures(1, 12));
    // The sweep was slower than the lease: it expired during the second page and another process took it.
    s.redis.onCall = (command) => {
      if (command === 'read' && s.redis.callsOf('read').length === 3) s.redis.leases.set(LOCK, 'another process');
    };
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 4, recovered: 4 });
    expect(s.redis.hash(RESUME).size + s.redis.hash(TOP).size).toBe(0);
    expect(s.redis.leases.get(LOCK)).toBe('another process');
    expect(s.lines.at(-1)).toEqual([
      'warn',
      { queue: 'mail' },
      'the sweep of this queue outlived its lease; another process sweeps it now',
    ]);
  });

  it('finds a failure whose letter was lost under a page of new, recorded failures that landed before the next run', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 4));
    await s.recordedAtFailure(...ids(1, 4));
    await s.reconciler.reconcileOnce();
    // j5's worker died before its DLQ write; j6 and j7 failed after it, their letters written.
    s.redis.fail('mail', ...failures(5, 7));
    await s.recordedAtFailure('j6', 'j7');
    await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j5']);
  });

  it('reads past later failures in the same millisecond as the newest job it saw, ordered above it, before a recorded page may stop it', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 4));
    await s.recordedAtFailure(...ids(1, 4));
    await s.reconciler.reconcileOnce();
    expect(s.redis.hash(TOP).get('mail')).toBe(`${T0 + 4_000}:j4`);
    // Three more failed in j4's millisecond; Redis orders a tie by id, newest first, so all three
    // come before j4. j4c's worker died before its DLQ write; the two above it were written.
    s.redis.fail('mail', ...['j4c', 'j4d', 'j4e'].map((id) => ({ id, finishedOn: T0 + 4_000 })));
    await s.recordedAtFailure('j4d', 'j4e');
    // A page of the same time is not past j4: only j4 itself, or a job older than it, is. The
    // page holding j4 wrote j4c, so the next one, recorded and older, is what stops the check.
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 1 });
    expect(s.recovered()).toEqual(['j4c']);
    expect(s.pages().slice(-3)).toEqual([
      ['head', 2],
      ['j4d', 2],
      ['j4', 2],
    ]);
  });

  it('is not past the newest job it saw where that job failed again since, higher up', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 4));
    await s.recordedAtFailure(...ids(1, 4));
    await s.reconciler.reconcileOnce();
    // j5 failed with its letter lost, j6 with its letter written; then j4, retried from the
    // failed tab, failed again (its entry re-opened by the runtime): it is at the head now.
    s.redis.fail('mail', ...failures(5, 6), { id: 'j4', finishedOn: T0 + 10_000 });
    await s.recordedAtFailure('j6');
    await s.reconciler.reconcileOnce();
    expect(s.recovered()).toEqual(['j5']);
  });

  it('stops at the first recorded page under the newest job it saw, when that job has left the set', async () => {
    const s = sweepOf({ pageSize: 2 });
    s.redis.fail('mail', ...failures(1, 6));
    await s.recordedAtFailure(...ids(1, 6));
    await s.reconciler.reconcileOnce();
    s.redis.remove('mail', 'j6');
    // j5 and j4 failed before j6 did: that page is past it, recorded, and the older pages were swept.
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 2, recovered: 0 });
  });

  it('sweeps a failed set it has no record of sweeping to its end, over as many runs as its budget needs', async () => {
    // A first start on a set that has a recorded head, or the sweep's state lost: older runs
    // cannot be said to have swept what is under the head.
    const s = sweepOf({ pageSize: 2, maxPerQueue: 6 });
    s.redis.fail('mail', ...failures(1, 12));
    await s.recordedAtFailure(...ids(2, 12));
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 0 });
    expect(s.redis.hash(RESUME).get('mail')).toBe(`${T0 + 7_000}:j7`);
    // Then the head is checked down past j12, where the first run began, and the walk goes on.
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 6, recovered: 0 });
    expect(await s.reconciler.reconcileOnce()).toEqual({ scanned: 4, recovered: 1 });
    expect(s.recovered()).toEqual(['j1']);
    expect(s.redis.hash(RESUME).has('mail')).toBe(false);
  });

  it('records every job that stays in the failed set, whatever leaves or lands on top, mid-sweep or between runs (property)', async () => {
    const change: fc.Arbitrary<Change> = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('leave' as const), rank: fc.integer({ min: 0, max: 3 }) }) },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('fail' as const), count: fc.integer({ min: 1, max: 4 }), recorded: fc.boolean() }),
      },
      // The DLQ refuses the next writes (a timeout, a failover).
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('outage' as const), writes: fc.integer({ min: 1, max: 5 }) }) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(change, { maxLength: 80 }),
        fc.integer({ min: 1, max: 6 }),
        async (pageSize, extra, backlog, changes, busyRuns) => {
          const maxPerQueue = Math.max(3, pageSize) + extra;
          const s = sweepOf({ pageSize, maxPerQueue });
          // The backlog: failures no letter was written for, three to a millisecond.
          const initial = Array.from({ length: backlog }, (_, i) => ({ id: `b${i}`, finishedOn: T0 + Math.floor(i / 3) * 1_000 }));
          s.redis.fail('mail', ...initial);
          const left = new Set<string>();
          let batch = 0;
          let next = 0;
          const apply = () => {
            const c = changes[next++];
            if (!c || c.kind === 'none') return;
            if (c.kind === 'outage') {
              s.outage.writes += c.writes;
              return;
            }
            if (c.kind === 'leave') {
              const id = s.redis.failedIds('mail')[c.rank];
              if (id !== undefined) {
                s.redis.remove('mail', id);
                left.add(id);
              }
              return;
            }
            batch++;
            // A batch fails in one millisecond, after everything before it.
            const jobs = Array.from({ length: c.count }, (_, i) => ({ id: `n${batch}-${i}`, finishedOn: T0 + 1_000_000 + batch * 1_000 }));
            s.redis.fail('mail', ...jobs);
            if (c.recorded) for (const j of jobs) void s.dlq.record({ queue: 'mail', jobId: j.id, source: 'runtime' } as DeadLetterInput);
          };
          s.redis.onCall = apply;
          for (let run = 0; run < busyRuns; run++) {
            apply();
            // The budget, and a page of letters earlier runs could not write.
            expect((await s.reconciler.reconcileOnce()).scanned).toBeLessThanOrEqual(maxPerQueue + pageSize);
          }
          // Then quiet runs, enough to walk the whole set two jobs a run.
          s.redis.onCall = undefined;
          s.outage.writes = 0;
          const quiet = s.redis.failedIds('mail').length + 3;
          for (let run = 0; run < quiet; run++) await s.reconciler.reconcileOnce();
          const missing = s.redis.failedIds('mail').filter((id) => !s.dlq.get('mail', id));
          expect(missing).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
