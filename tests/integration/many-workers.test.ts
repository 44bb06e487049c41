import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { readWorkersView, STALE_HEARTBEAT_MS } from '@/dashboard/workers/workers-view';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_TTL_MS } from '@/lib/runtime/worker-heartbeat';
import { silentLogger } from '@/lib/logging/logger';
import { testBullpen } from '../helpers/test-bullpen';
import { TEST_JOBS, TEST_SCHEDULES } from '../helpers/test-jobs';
import { startTestRedis, uniquePrefix } from '../helpers/redis';
import { startTestCluster } from '../helpers/redis-cluster';
import { describeRuns, nextOccurrences, occurrencesBetween, readRuns } from '../helpers/schedule-runs';
import { type SpawnedWorker, spawnScript } from '../helpers/spawn-worker';

/**
 * Issue 11, "many workers": N worker processes, composed as in production
 * (tests/fixtures/many-workers-worker.ts), share the queues of one redis-server and of a
 * three-master cluster. One schedule's occurrences each run once across them, a process
 * killed with SIGKILL hands its active jobs to the others through BullMQ's stalled
 * check, and the workers view lists them all, the killed one going stale.
 */

/** Each process's WORKER_TYPES, one process per entry: all run the schedule's and the crash's queues, the last a third one too. */
const QUEUES = [
  ['notify', 'tidy'],
  ['notify', 'tidy'],
  ['notify', 'tidy', 'sync'],
];
/** The process killed with SIGKILL. */
const VICTIM = 1;
/** Consecutive schedule occurrences, from the first one after the processes are up, that must each run once. */
const WINDOW = 4;
/** Processes that must each take runs of the schedule, at least: exactly-once means nothing unless the runs are shared. */
const SHARING = 2;
/** How long past the window's last occurrence the schedule test waits for what it needs before it reports what is missing. */
const GRACE_MS = 30_000;
/** notify jobs for the crash, each JOB_MS long in its handler. */
const JOBS = 600;
const JOB_MS = 250;
/**
 * Short stall settings, so that a killed process's jobs come back within seconds; the
 * lock is long enough that a loaded machine's pauses do not let a live process's jobs
 * lapse, and that the killed process's jobs are still active (locked) when the test
 * looks right after the kill: a lock lasts at least half of it past its last renewal.
 */
const STALL_ENV = { STALLED_INTERVAL_MS: '2000', LOCK_DURATION_MS: '6000' };
/** How long after the kill the view may take to show the killed process stale: STALE_HEARTBEAT_MS after its last beat, and a margin. */
const STALE_WAIT_MS = STALE_HEARTBEAT_MS + HEARTBEAT_INTERVAL_MS + 20_000;

/** Where the processes find Redis, and the test's own Bullpen on it. */
interface Backend {
  env: Record<string, string>;
  bullpen(prefix: string): Bullpen;
  stop(): Promise<void>;
}

const backends: Array<{ name: string; start: () => Promise<Backend> }> = [
  {
    name: 'one redis-server',
    start: async () => {
      const redis = await startTestRedis();
      return {
        // An empty REDIS_CLUSTER_NODES is unset: it must not win over REDIS_URL from the environment.
        env: { REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '' },
        bullpen: (prefix) => testBullpen(redis, { prefix }),
        stop: () => redis.stop(),
      };
    },
  },
  {
    name: 'a three-master Redis Cluster',
    start: async () => {
      const cluster = await startTestCluster();
      const nodes = cluster.nodes.join(',');
      return {
        env: { REDIS_CLUSTER_NODES: nodes },
        bullpen: (prefix) =>
          createBullpen({
            jobs: TEST_JOBS,
            schedules: TEST_SCHEDULES,
            webhookJobType: 'notify',
            config: loadConfig({ REDIS_CLUSTER_NODES: nodes, BULLPEN_DATA_DIR: '.data/test', LOG_LEVEL: 'silent' }),
            prefix,
            logger: silentLogger,
          }),
        stop: () => cluster.stop(),
      };
    },
  },
];

describe.each(backends)('$name with three worker processes', ({ start }) => {
  let backend: Backend | undefined;
  let bullpen: Bullpen;
  let prefix: string;
  const workers: SpawnedWorker[] = [];
  let pids: number[] = [];
  /** The killed process's last heartbeat, as the view showed it stale. */
  let victimLastBeat: number | undefined;

  beforeAll(async () => {
    backend = await start();
    prefix = uniquePrefix('many');
    bullpen = await backend.bullpen(prefix).ready();
    for (const queues of QUEUES) {
      const env = { ...backend.env, ...STALL_ENV, BULLPEN_PREFIX: prefix, BULLPEN_DATA_DIR: '.data/test', WORKER_TYPES: queues.join(',') };
      workers.push(
        spawnScript('tests/fixtures/many-workers-worker.ts', { ...env, JOB_MS: String(JOB_MS), MAX_RUN_MS: '600000' }, '"event":"ready"'),
      );
    }
    await Promise.all(workers.map((w) => w.ready));
    pids = workers.map((w) => w.child.pid!);
  }, 180_000);

  afterAll(async () => {
    for (const w of workers) if (alive(w)) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await bullpen?.close();
    await backend?.stop();
  });

  it('lists every process in the workers view with its own queues', async () => {
    await expect
      .poll(async () => (await readWorkersView(bullpen)).processes.map((p) => p.pid).sort(), { timeout: 30_000 })
      .toEqual([...pids].sort());
    const { processes } = await readWorkersView(bullpen);
    for (const [i, pid] of pids.entries()) {
      const p = processes.find((x) => x.pid === pid);
      expect(p).toMatchObject({ id: `bullpen:${hostname()}:${pid}`, host: hostname(), stale: false });
      expect(p!.queues).toEqual(QUEUES[i].map((type) => ({ type, concurrency: bullpen.jobs.get(type).concurrency })));
    }
  });

  it('runs each occurrence of a schedule exactly once across the processes, which share the runs', async () => {
    const window = nextOccurrences(Date.now(), WINDOW);
    const last = window.at(-1)!;
    const deadline = last + GRACE_MS;
    for (;;) {
      const runs = await readRuns(bullpen, prefix);
      const ran = new Set(runs.map((r) => r.at));
      const by = new Set(runs.map((r) => r.pid));
      // Settled: an occurrence after the window has run too (a second run of one in the
      // window would have started by then), and more than one process has taken runs.
      if (window.every((t) => ran.has(t)) && runs.some((r) => r.at > last) && by.size >= SHARING) break;
      // Past the deadline the assertions below say what is missing.
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    const runs = await readRuns(bullpen, prefix);
    const record = describeRuns(runs);
    // Up to the window's end: the pattern's occurrences from the first run on, each once —
    // none twice, none missed in between, none off the pattern...
    const occurrences = runs
      .map((r) => r.at)
      .filter((t) => t <= last)
      .sort((a, b) => a - b);
    expect(occurrences.length, `no runs (window ${window.join(', ')})`).toBeGreaterThan(0);
    expect(occurrences, `runs (occurrence|pid|started after it): ${record}`).toEqual(occurrencesBetween(occurrences[0], last));
    // ...covering the window, which started after every process was up.
    expect(
      window.filter((t) => !occurrences.includes(t)),
      `missed; runs: ${record}`,
    ).toEqual([]);
    // The occurrences were shared: more than one process took runs, and nothing else did.
    // Which process wins an occurrence is a race (each one's blocking fetch times out at
    // the due time; the first to move the job wins), so a process may lose every race of
    // a short window: seen once in CI, 20 runs split between two of the three.
    const takers = new Set(runs.map((r) => r.pid));
    expect(takers.size, `runs: ${record}`).toBeGreaterThanOrEqual(SHARING);
    expect(
      [...takers].filter((pid) => !pids.includes(pid)),
      `runs: ${record}`,
    ).toEqual([]);
    // The processes raced to apply the schedule: one created its BullMQ Job Scheduler,
    // the others found the lock held or the scheduler already as defined.
    const boots = workers.map((w) => bootstrapOutcome(w.output()));
    expect(boots.filter((b) => b === 'created')).toHaveLength(1);
    for (const b of boots.filter((x) => x !== 'created')) expect(b).toMatch(/^(skipped|unchanged)$/);
  }, 120_000);

  it("hands a killed process's active jobs to the others after the stall interval, and every job completes", async () => {
    const victim = workers[VICTIM];
    const victimPid = pids[VICTIM];
    for (let i = 0; i < JOBS; i += 300) {
      await bullpen.dispatcher.dispatchBulk(
        Array.from({ length: 300 }, (_, j) => ({
          type: 'notify' as const,
          data: { webhookId: 'wh', event: 'many-workers', payload: { n: i + j } },
        })),
      );
    }
    // Kill it while it runs jobs, once every process has taken some.
    await waitFor(
      async () => {
        const started = await readJobRecords(bullpen, `${prefix}:started`);
        return pids.every((p) => started.some((s) => s.pid === p)) && (await runningIn(victimPid)).length > 0;
      },
      60_000,
      async () => `started by pid: ${JSON.stringify(countBy(await readJobRecords(bullpen, `${prefix}:started`)))}`,
    );
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull();
    // Watched from now on, beside the recovery: the record expires HEARTBEAT_TTL_MS after
    // the last beat, so the stale state is looked for while it is bound to be there.
    const staleSeen = viewStaleness(victimPid);
    // Handled here too, so that a failure below does not leave it rejecting unawaited.
    staleSeen.catch(() => undefined);

    // What it held: jobs it started and never completed, all still active in BullMQ.
    const held = await runningIn(victimPid);
    const queue = bullpen.queues.get('notify');
    const active = await bullpen.redis.lrange(queue.toKey('active'), 0, -1);
    expect(held.length).toBeGreaterThan(0);
    expect(active).toEqual(expect.arrayContaining(held));

    await waitFor(
      async () => new Set((await readJobRecords(bullpen, `${prefix}:completions`)).map((c) => c.jobId)).size >= JOBS,
      120_000,
      async () => {
        const done = new Set((await readJobRecords(bullpen, `${prefix}:completions`)).map((c) => c.jobId));
        return `${done.size} of ${JOBS} jobs completed; of the ${held.length} the killed process held, not completed: ${held.filter((id) => !done.has(id)).join(', ')}`;
      },
    );
    const completions = await readJobRecords(bullpen, `${prefix}:completions`);
    // Each job the victim held ran again in another process, to completion.
    for (const jobId of held) {
      expect(
        completions.filter((c) => c.jobId === jobId && c.pid !== victimPid),
        jobId,
      ).toHaveLength(1);
    }
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0, prioritized: 0 });
    expect(await bullpen.dlq.pendingCount()).toBe(0);
    // At least once, and only the victim's jobs in flight twice: it held at most its concurrency.
    expect(new Set(completions.map((c) => c.jobId)).size).toBe(JOBS);
    expect(completions.length - JOBS).toBeLessThanOrEqual(bullpen.jobs.get('notify').concurrency);

    // The view: the killed process's record went stale (no heartbeat), the others' did not.
    const seen = await staleSeen;
    expect(seen.staleness, `the view's processes and their staleness within ${STALE_WAIT_MS} ms of the kill`).toEqual(
      Object.fromEntries(pids.map((p) => [p, p === victimPid])),
    );
    victimLastBeat = seen.victimLastBeat;
  }, 240_000);

  it('stops the survivors cleanly: their records leave the view at once, the killed one stays, stale, until it expires', async () => {
    const survivors = workers.filter((_, i) => i !== VICTIM);
    for (const w of survivors) w.child.kill('SIGTERM');
    expect(await Promise.all(survivors.map((w) => w.exited))).toEqual(survivors.map(() => 0));
    const { processes } = await readWorkersView(bullpen);
    expect(processes.filter((p) => p.pid !== pids[VICTIM])).toEqual([]);
    // The killed one's record stays, stale, until HEARTBEAT_TTL_MS after its last beat; a
    // slow run may reach that point first, and then it must be gone.
    const victim = processes.find((p) => p.pid === pids[VICTIM]);
    if (victim) expect(victim.stale).toBe(true);
    else expect(Date.now()).toBeGreaterThanOrEqual(victimLastBeat! + HEARTBEAT_TTL_MS - 1_000);
  }, 60_000);

  /**
   * Polls the workers view until the killed process is stale and the others are not (or
   * STALE_WAIT_MS passes): each process's staleness as last seen, and the killed one's last beat.
   */
  async function viewStaleness(victimPid: number): Promise<{ staleness: Record<number, boolean>; victimLastBeat?: number }> {
    const deadline = Date.now() + STALE_WAIT_MS;
    for (;;) {
      const { processes } = await readWorkersView(bullpen);
      const staleness = Object.fromEntries(processes.map((p) => [p.pid, p.stale]));
      const victimLastBeat = processes.find((p) => p.pid === victimPid)?.heartbeatAt;
      const settled = pids.every((p) => staleness[p] === (p === victimPid));
      if (settled || Date.now() > deadline) return { staleness, victimLastBeat };
      await sleep(500);
    }
  }

  /** notify jobs a process started and has not completed. */
  async function runningIn(pid: number): Promise<string[]> {
    const done = new Set((await readJobRecords(bullpen, `${prefix}:completions`)).filter((c) => c.pid === pid).map((c) => c.jobId));
    return (await readJobRecords(bullpen, `${prefix}:started`)).filter((s) => s.pid === pid && !done.has(s.jobId)).map((s) => s.jobId);
  }
});

/** The fixture's `<jobId>|<pid>` records on a list. */
async function readJobRecords(bullpen: Bullpen, key: string): Promise<Array<{ jobId: string; pid: number }>> {
  return (await bullpen.redis.lrange(key, 0, -1)).map((line) => {
    const [jobId, pid] = line.split('|');
    return { jobId, pid: Number(pid) };
  });
}

/**
 * What a process's schedule bootstrap did, from the worker's JSON log line "schedules
 * applied" (lib/runtime/worker-process.ts): the schedule's action, or `skipped` when
 * another process held the lock.
 */
function bootstrapOutcome(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; applied?: boolean; schedules?: unknown[] };
    if (entry.msg !== 'schedules applied' || typeof entry.applied !== 'boolean') continue;
    return entry.applied ? String(entry.schedules?.[0]).split(':').at(-1) : 'skipped';
  }
  return undefined;
}

function countBy(records: Array<{ pid: number }>): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of records) out[r.pid] = (out[r.pid] ?? 0) + 1;
  return out;
}

function alive(w: SpawnedWorker): boolean {
  return w.child.exitCode === null && w.child.signalCode === null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it holds; past the deadline, fails with what `explain` says is missing. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, explain: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${await explain()}`);
    await sleep(100);
  }
}
