/**
 * The worker process the runtime profile runs under `node --cpu-prof` (runtime-profile.ts):
 * the worker as `npm run worker` composes it (worker/main.ts: schedules, reconciler, usage
 * recorder, heartbeat, history, /metrics on METRICS_PORT), the no-op handler in place of
 * WORKER_TYPES' own, BENCH_CONCURRENCY per queue, logs at info to /dev/null, as in the
 * runtime benchmark. It runs BENCH_JOBS jobs, tells its parent over IPC when the first one
 * started and the last one ended (process.hrtime, the clock V8's profile samples carry, in
 * µs) and how much it allocated on V8's heap between the two, stops the worker and exits,
 * which writes the profile. With BENCH_SIDE=plain it runs a plain BullMQ Worker instead,
 * with the runtime benchmark's options for that side: the profile of what BullMQ costs alone.
 * Env: as the worker (REDIS_URL, BULLPEN_PREFIX, WORKER_TYPES, METRICS_PORT), BENCH_JOBS,
 * BENCH_CONCURRENCY, BENCH_SIDE (bullpen or plain).
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';
import pino from 'pino';
import { shippedApp } from '@/jobs/shipped-app';
import { startAppWorker } from '@/lib/app/start-app-worker';
import { loadConfigOrExit } from '@/lib/config';
import type { HandlerMap } from '@/lib/runtime/handler';
import { createBullpen } from '@/lib/bullpen';
import { plainRunner, TYPE } from './runtime';

/** What the child reports once its jobs are done. */
export interface ProfiledRun {
  jobs: number;
  /** process.hrtime of the first handler call and of the last one, in µs. */
  firstUs: number;
  lastUs: number;
  /** This process's CPU time (user + system) between the two, µs. */
  cpuUs: number;
  /** Bytes allocated on V8's heap between the two, and the garbage collections that ran. */
  heap: HeapWindow;
}

export interface HeapWindow {
  allocatedBytes: number;
  gcs: number;
  /**
   * Bytes the scavenges moved to the old generation: objects still reachable at two young
   * collections in a row, which V8 then copies once more and leaves to a full collection.
   */
  promotedBytes: number;
}

/**
 * Counts what the process allocates from now until the returned function is called: the
 * heap's growth between collections, each collection's start read against the previous
 * one's end (V8's GC profiler). A count of work done, like the CPU time, and one that a
 * loaded machine changes even less: what a side allocates per job is what its collections
 * then cost.
 */
function heapWindow(): () => HeapWindow {
  const profiler = new GCProfiler();
  const from = getHeapStatistics().used_heap_size;
  profiler.start();
  return () => {
    const to = getHeapStatistics().used_heap_size;
    const gcs = profiler.stop()?.statistics ?? [];
    let used = from;
    let allocatedBytes = 0;
    let promotedBytes = 0;
    for (const gc of gcs) {
      allocatedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - used);
      used = gc.afterGC.heapStatistics.usedHeapSize;
      if (gc.gcType === 'Scavenge') promotedBytes += Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC));
    }
    return { allocatedBytes: allocatedBytes + Math.max(0, to - used), gcs: gcs.length, promotedBytes };
  };
}

/** The old generation's used bytes in one of the GC profiler's heap readings. */
function oldSpace(at: { heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }> }): number {
  return at.heapSpaceStatistics.find((s) => s.spaceName === 'old_space')?.spaceUsedSize ?? 0;
}

/**
 * A full collection, as a worker that has run a while under load has had: it moves what
 * is live into the old generation, BullMQ's maps of running jobs with it, and from then on
 * each young collection keeps more (docs/benchmarks.md, "Where the runtime's time goes").
 * Run at the start of the window on both sides, so that neither is measured in the state a
 * fresh process is in until its first one, which comes at a different moment on each.
 */
function fullCollection(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('The profiled worker runs with --expose-gc (runtime-profile.ts)');
  gc();
}

const micros = () => Number(process.hrtime.bigint() / 1_000n);
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const jobs = Number(process.env.BENCH_JOBS);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`BENCH_JOBS must be a positive integer, got "${process.env.BENCH_JOBS}"`);
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  let ran = 0;
  let firstUs = 0;
  let cpuFirstUs = 0;
  let heapEnd: (() => HeapWindow) | undefined;
  let resolveDone!: (last: { us: number; cpuUs: number; heap: HeapWindow }) => void;
  const done = new Promise<{ us: number; cpuUs: number; heap: HeapWindow }>((r) => (resolveDone = r));
  const handlers: HandlerMap = {};
  for (const type of config.WORKER_TYPES ?? []) {
    handlers[type] = async () => {
      if (ran === 0) {
        fullCollection();
        heapEnd = heapWindow();
        firstUs = micros();
        cpuFirstUs = cpuMicros();
      }
      if (++ran === jobs) resolveDone({ us: micros(), cpuUs: cpuMicros(), heap: (heapEnd as () => HeapWindow)() });
    };
  }
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
  let stop: () => Promise<unknown>;
  if (process.env.BENCH_SIDE === 'plain') {
    const bullpen = createBullpen({ ...shippedApp, config, logger });
    const runner = plainRunner(bullpen);
    await runner.start(() => handlers[TYPE]({} as never));
    stop = async () => {
      await runner.stop();
      await bullpen.close();
    };
  } else {
    const worker = await startAppWorker(shippedApp, { config, logger, handlers, concurrency });
    stop = () => worker.stop(10_000);
  }
  process.send?.({ ready: true });
  const last = await done;
  await stop();
  const run: ProfiledRun = { jobs, firstUs, lastUs: last.us, cpuUs: last.cpuUs - cpuFirstUs, heap: last.heap };
  process.send?.({ run }, () => process.exit(0));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
