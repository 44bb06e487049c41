import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bullpen, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { isAppError } from '@/lib/errors/app-error';
import { DEFAULT_DISPATCH_TIMEOUT_MS } from '@/lib/jobs/dispatcher';
import { readOverview, readQueueOverview } from '@/dashboard/queues/queue-overview';
import { silentLogger } from '@/lib/logging/logger';
import { uniquePrefix } from '../helpers/redis';
import { startReplicatedCluster, type ReplicatedCluster, type ReplicatedShard } from '../helpers/redis-cluster-replicas';
import { startRecordingReceiver, type RecordingReceiver } from '../helpers/recording-receiver';
import { spawnFixture, type SpawnedWorker } from '../helpers/spawn-worker';
import { LARGER_TEST_JOBS, TEST_SCHEDULES } from '../helpers/test-jobs';

/*
 * Cluster failover (docs/scaling.md, "Failover"): a real worker process on a cluster of
 * three masters with one replica each, a steady load on two queues that live on
 * different masters and a schedule firing every two seconds; then the master serving
 * one of the loaded queues (and the schedule's queue) is killed with SIGKILL. Every job
 * is accounted for outside Redis: the worker (tests/fixtures/recording-worker.ts, on the
 * larger test table) POSTs each run's marker to a loopback receiver.
 */

/** `cluster-node-timeout`: a master unreachable this long is failed over (production default: 15 000). */
const NODE_TIMEOUT_MS = 2_000;
/** One job of each loaded type per tick: 2 × 10 jobs/s. */
const TICK_MS = 100;
/**
 * The killed master's queue: notify (slot 8402, the second master of a fresh cluster,
 * which also serves the runtime's `{dlq}` and `{idem}`, the store notify's handler uses).
 */
const KILLED_QUEUE = 'notify';
/** A queue on another master: report (slot 4432, the first). */
const OTHER_QUEUE = 'report';
/** A schedule on the killed master's queue: the test table's tidy (slot 9518), edited to fire every 2 s. */
const SCHEDULE = 'tidy';
const SCHEDULE_PATTERN = '*/2 * * * * *';
/**
 * How far before the kill a job acknowledged by the old master may be lost: replication
 * is asynchronous, and on loopback the replica trails its master by milliseconds. A
 * second is a generous bound for a loaded two-core machine.
 */
const REPLICATION_WINDOW_MS = 1_000;

interface Dispatched {
  marker: string;
  type: string;
  sentAt: number;
  /** When the producer got the job id back (the master acknowledged it); undefined: refused. */
  ackAt?: number;
  error?: string;
  /** When the producer got the error. */
  refusedAt?: number;
  /** The error's code (AppError) and whether it said the job may still have been added. */
  code?: string;
  maybeApplied?: boolean;
}

describe('a Redis Cluster master killed with SIGKILL under load', () => {
  let cluster: ReplicatedCluster;
  let receiver: RecordingReceiver;
  let dataDir: string;

  beforeAll(async () => {
    cluster = await startReplicatedCluster({ nodeTimeoutMs: NODE_TIMEOUT_MS });
    receiver = await startRecordingReceiver();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-failover-data-'));
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('a replica takes over; the worker, the schedule and the read models carry on; lost jobs are only those of the replication window', async () => {
    const prefix = uniquePrefix('failover');
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes.join(','),
      BULLPEN_PREFIX: prefix,
      BULLPEN_DATA_DIR: dataDir,
      WORKER_TYPES: [KILLED_QUEUE, OTHER_QUEUE, SCHEDULE].join(','),
      SINK_URL: receiver.url,
      // A job whose completion the old master took with it comes back through the stalled check.
      STALLED_INTERVAL_MS: '1000',
      LOCK_DURATION_MS: '10000',
      RECONCILE_INTERVAL_MS: '2000',
    };
    // The dashboard's view and the producer: fail-fast connection, as the dashboard has.
    const dashboard: Bullpen = createBullpen({
      jobs: LARGER_TEST_JOBS,
      schedules: TEST_SCHEDULES,
      webhookJobType: 'notify',
      config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
      logger: silentLogger,
    });
    let worker: SpawnedWorker | undefined;
    const dispatched: Dispatched[] = [];
    let loading = true;
    let load: Promise<void> | undefined;
    try {
      await dashboard.ready(20_000);
      // Where the queues live: the killed queue and the schedule's on one master, the other queue elsewhere.
      const slot = {
        killed: await cluster.keySlot(`${dashboard.keys.queuePrefix(KILLED_QUEUE)}:${KILLED_QUEUE}:meta`),
        schedule: await cluster.keySlot(`${dashboard.keys.queuePrefix(SCHEDULE)}:${SCHEDULE}:meta`),
        other: await cluster.keySlot(`${dashboard.keys.queuePrefix(OTHER_QUEUE)}:${OTHER_QUEUE}:meta`),
      };
      const victim = (await cluster.masterOf(slot.killed))!;
      expect(await cluster.masterOf(slot.schedule)).toBe(victim);
      expect(await cluster.masterOf(slot.other)).not.toBe(victim);
      // The runtime's stores the worker writes through the failover: notify's idempotency records and the DLQ.
      expect(await cluster.masterOf(await cluster.keySlot(dashboard.keys.tagged('idem', 'x')))).toBe(victim);
      expect(await cluster.masterOf(await cluster.keySlot(dashboard.keys.tagged('dlq', 'x')))).toBe(victim);
      const victimShard = (await cluster.shards()).find((s) => s.master === victim)!;
      expect(victimShard.replicas).toHaveLength(1);
      const heir = victimShard.replicas[0];

      await dashboard.schedules.edit(SCHEDULE, { pattern: SCHEDULE_PATTERN }, 'failover-test');

      worker = spawnFixture('recording-worker.ts', env);
      await worker.ready;

      // The steady load: each tick dispatches one job per loaded type without waiting for
      // the previous ones, as independent producers would.
      let n = 0;
      const inFlight = new Set<Promise<void>>();
      const dispatchOne = (type: typeof KILLED_QUEUE | typeof OTHER_QUEUE) => {
        const marker = `${type}-${n++}`;
        const entry: Dispatched = { marker, type, sentAt: Date.now() };
        dispatched.push(entry);
        const sent =
          type === KILLED_QUEUE
            ? dashboard.dispatcher.dispatch(type, { webhookId: 'failover', event: 'failover', payload: { marker } })
            : dashboard.dispatcher.dispatch(type, { orgId: marker });
        const p = sent.then(
          () => void (entry.ackAt = Date.now()),
          (err: unknown) => {
            entry.refusedAt = Date.now();
            entry.error = err instanceof Error ? err.message : String(err);
            entry.code = isAppError(err) ? err.code : undefined;
            entry.maybeApplied = isAppError(err) ? (err.details as { maybeApplied?: boolean } | undefined)?.maybeApplied : undefined;
          },
        );
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      };
      load = (async () => {
        while (loading) {
          dispatchOne(KILLED_QUEUE);
          dispatchOne(OTHER_QUEUE);
          await new Promise((r) => setTimeout(r, TICK_MS));
        }
        await Promise.all([...inFlight]);
      })();

      // Running before the kill: both queues deliver and the schedule has fired.
      await waitFor(
        () => receiver.seen().size >= 40,
        60_000,
        () => `${receiver.seen().size} delivered`,
      );
      const firstRun = await waitForValue(async () => (await dashboard.schedules.get(SCHEDULE)).lastRun, 30_000);
      expect(firstRun.outcome).not.toBe('failed');

      // The read model, polled through the failover: when it fails and when it answers again.
      const readings: Array<{ at: number; ok: boolean }> = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const at = Date.now();
          const ok = await readOverview(dashboard, at).then(
            () => true,
            () => false,
          );
          readings.push({ at, ok });
          await new Promise((r) => setTimeout(r, 200));
        }
      })();

      // How far the replica trails its master just before the kill: the asynchronous replication window, in bytes.
      // Both read at once: the load goes on, so a read that comes later sees more of it.
      const [master, replica] = await Promise.all([cluster.replicationInfo(victim), cluster.replicationInfo(heir)]);
      const replicaLagBytes = Number(master.master_repl_offset) - Number(replica.slave_repl_offset);
      const killedAt = Date.now();
      const pid = cluster.kill(victim);
      // The replica takes over: CLUSTER SHARDS on a survivor names it master of the slots.
      let lastShards: ReplicatedShard[] = [];
      await waitFor(
        async () =>
          (lastShards = await cluster.shards()).some(
            (s) => s.master === heir && s.ranges.some(([a, b]) => slot.killed >= a && slot.killed <= b),
          ),
        60_000,
        () => JSON.stringify(lastShards),
      );
      await waitFor(
        async () =>
          (await Promise.all(cluster.alive().map((node) => cluster.clusterInfo(node)))).every((info) => info.cluster_state === 'ok'),
        30_000,
      );
      const failedOverAt = Date.now();
      const promoted = (await cluster.shards()).find((s) => s.master === heir)!;
      expect(promoted.ranges).toEqual(victimShard.ranges);
      expect((await cluster.replicationInfo(heir)).role).toBe('master');
      expect(cluster.alive()).not.toContain(victim);

      // The schedule fires again, twice, after the failover (the schedules page's read model).
      const runsAfter = new Set<number>();
      let scheduleState = '';
      await waitFor(
        async () => {
          const run = (await dashboard.schedules.get(SCHEDULE).catch(() => undefined))?.lastRun;
          if (run && run.at > failedOverAt && run.outcome === 'completed') runsAfter.add(run.at);
          const q = dashboard.queues.get(SCHEDULE);
          scheduleState = JSON.stringify({
            run,
            counts: await q.getJobCounts().catch(String),
            schedulers: await q.getJobSchedulers().catch(String),
            delayed: (await q.getJobs(['delayed', 'wait', 'active'], 0, 5).catch(() => [])).map((j) => [j.id, j.timestamp, j.delay]),
          });
          return runsAfter.size >= 2;
        },
        60_000,
        () =>
          `${runsAfter.size} completed runs after the failover (failed over at ${failedOverAt}, now ${Date.now()}); ${scheduleState}; worker output tail:\n${worker?.output().slice(-4_000)}`,
      );

      // Load goes on for a while after the failover, then stops.
      await waitFor(() => dispatched.filter((d) => d.ackAt && d.sentAt > failedOverAt).length >= 40, 60_000);
      loading = false;
      await load;
      polling = false;
      await poller;

      // Settle: every acknowledged job delivered, or the queues drained and quiet.
      const acked = dispatched.filter((d) => d.ackAt !== undefined);
      const waitingCounts = async () => {
        const counts = await Promise.all([KILLED_QUEUE, OTHER_QUEUE].map((t) => readQueueOverview(dashboard, t, Date.now())));
        return counts.reduce((s, q) => s + q.counts.waiting + q.counts.active + q.counts.delayed + q.counts.prioritized, 0);
      };
      let quietSince = Date.now();
      let lastSeen = -1;
      await waitFor(
        async () => {
          const seen = receiver.seen();
          if (acked.every((d) => seen.has(d.marker))) return true;
          if (seen.size !== lastSeen || (await waitingCounts()) > 0) {
            lastSeen = seen.size;
            quietSince = Date.now();
          }
          // Quiet for longer than a lock plus a stalled check: what is missing now is lost.
          return Date.now() - quietSince > 15_000;
        },
        120_000,
        () => `${acked.filter((d) => receiver.seen().has(d.marker)).length}/${acked.length} delivered`,
      );

      const seen = receiver.seen();
      const lost = acked.filter((d) => !seen.has(d.marker));
      const refused = dispatched.filter((d) => d.error !== undefined);
      const refusedButRan = refused.filter((d) => seen.has(d.marker));
      const repeats = receiver.arrivals.length - seen.size;
      const readModelDownMs = downtime(readings);
      const figures = {
        killedNode: victim,
        killedPid: pid,
        promoted: heir,
        failoverMs: failedOverAt - killedAt,
        replicaLagBytes,
        added: acked.length,
        completed: acked.length - lost.length,
        lost: lost.length,
        lostAckedMsBeforeKill: lost.map((d) => killedAt - (d.ackAt ?? 0)),
        refusedDuringFailover: refused.length,
        refusedAfterMs: refused.map((d) => d.refusedAt! - d.sentAt),
        refusedButRan: refusedButRan.length,
        repeatedDeliveries: repeats,
        readModelUnavailableMs: readModelDownMs,
        locksLostInWindow: logLines(worker.output()).filter((l) => /^could not renew lock for job/.test(errorMessage(l))).length,
        scheduleRunsAfterFailover: runsAfter.size,
      };
      console.log(`cluster failover: ${JSON.stringify(figures)}`);

      // The worker rode the failover out: no Redis command gave up (BullMQ's fetches and lock
      // renewals, the stores, the reconciler) and no job attempt was spent on it. One error is
      // expected: a lock the old master granted in the replication window is not on the new
      // master, so BullMQ cannot renew it (the job runs again from the wait list). A Redis
      // error the worker met is logged once as "Redis lost" (lib/logging/outage-log.ts, at
      // warn; the rest are counted): "Connection is closed." is the killed node's connection
      // dropping (BullMQ fetches again), any other is a command that gave up.
      const complaints = logLines(worker.output()).filter(
        (l) =>
          (l.level === 'error' && !/^could not renew lock for job/.test(errorMessage(l))) ||
          (l.level === 'warn' && 'attempt' in l) ||
          (l.level === 'warn' && /^Redis lost/.test(String(l.msg)) && errorMessage(l) !== 'Connection is closed.'),
      );
      expect(complaints.map((l) => `${l.level} ${l.msg ?? ''}: ${errorMessage(l)}`)).toEqual([]);

      // Lost jobs: only those the old master acknowledged in the replication window before the kill.
      for (const d of lost) {
        expect({ marker: d.marker, inWindow: (d.ackAt ?? 0) >= killedAt - REPLICATION_WINDOW_MS && (d.ackAt ?? 0) <= killedAt }).toEqual({
          marker: d.marker,
          inWindow: true,
        });
      }
      // Jobs added after the failover all completed, on both queues.
      const afterFailover = acked.filter((d) => d.sentAt > failedOverAt);
      expect(afterFailover.filter((d) => d.type === KILLED_QUEUE).length).toBeGreaterThan(10);
      expect(afterFailover.filter((d) => !seen.has(d.marker))).toEqual([]);
      // A dispatch refused while its master was gone fails fast (the producer's role): within
      // the dispatch bound, 1 s of it spare for a loaded machine's timers, as REDIS_UNAVAILABLE.
      // One that ran anyway was told it might have been added: what the producer heard is true.
      for (const d of refused) {
        expect(d.code, `${d.marker}: ${d.error}`).toBe('REDIS_UNAVAILABLE');
        expect(d.refusedAt! - d.sentAt, `${d.marker} refused after ${d.refusedAt! - d.sentAt} ms`).toBeLessThan(
          DEFAULT_DISPATCH_TIMEOUT_MS + 1_000,
        );
      }
      expect(refusedButRan.filter((d) => d.maybeApplied !== true).map((d) => `${d.marker}: ${d.error}`)).toEqual([]);
      // A delivery repeats only for a job whose completion (or lock) the old master granted in the
      // replication window: its first arrival in that window (or while the slots had no master),
      // its second after the kill, and never a third.
      const arrivalsOf = new Map<string, number[]>();
      for (const a of receiver.arrivals) arrivalsOf.set(a.marker, [...(arrivalsOf.get(a.marker) ?? []), a.at]);
      const repeatedOutside = [...arrivalsOf]
        .filter(([, at]) => at.length > 1)
        .filter(([, at]) => !(at.length === 2 && at[0] >= killedAt - REPLICATION_WINDOW_MS && at[0] <= failedOverAt && at[1] > killedAt))
        .map(([marker, at]) => ({ marker, msFromKill: at.map((t) => t - killedAt) }));
      expect(repeatedOutside).toEqual([]);
      // The read model answered again after the failover, on the same connection.
      expect(readings.some((r) => r.at > failedOverAt && r.ok)).toBe(true);
      expect(readings.at(-1)?.ok).toBe(true);

      // The read models count correctly on the promoted master: five delayed jobs added now show as five.
      for (let i = 0; i < 5; i++) {
        await dashboard.dispatcher.dispatch(
          KILLED_QUEUE,
          { webhookId: 'failover', event: 'later', payload: { marker: `later-${i}` } },
          { delayMs: 3_600_000 },
        );
      }
      const overview = await readOverview(dashboard, Date.now());
      const killedTile = overview.queues.find((q) => q.name === KILLED_QUEUE)!;
      expect(killedTile.counts).toMatchObject({ waiting: 0, active: 0, prioritized: 0, delayed: 5, failed: 0 });
      expect(killedTile.counts.completed).toBeGreaterThan(0);
      expect(overview.queues.find((q) => q.name === OTHER_QUEUE)!.counts).toMatchObject({ waiting: 0, active: 0, failed: 0 });
      // The same worker process serves the queue (no restart), and the DLQ on the promoted master is readable and empty.
      expect(worker.child.exitCode).toBeNull();
      expect(killedTile.workerNames).toEqual([`bullpen:${os.hostname()}:${worker.child.pid}`]);
      expect(overview.deadLetters).toBe(0);
    } finally {
      loading = false;
      await load?.catch(() => undefined);
      worker?.child.kill('SIGTERM');
      if (worker) await worker.exited;
      await dashboard.close();
    }
  }, 300_000);
});

/** The message of a line's error: pino's `err`, or the outage log's `error` summary. */
function errorMessage(line: Record<string, unknown>): string {
  return ((line.err ?? line.error) as { message?: string } | undefined)?.message ?? '';
}

/** The worker's pino JSON lines (other output, such as "ready", is skipped). */
function logLines(output: string): Array<Record<string, unknown>> {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** The longest run of failed readings, from the first failure to the next success. */
function downtime(readings: Array<{ at: number; ok: boolean }>): number {
  let longest = 0;
  let since: number | undefined;
  for (const r of readings) {
    if (!r.ok) since ??= r.at;
    else if (since !== undefined) {
      longest = Math.max(longest, r.at - since);
      since = undefined;
    }
  }
  return longest;
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, explain?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${explain ? `: ${explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitForValue<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => (value = await read()) !== undefined, timeoutMs);
  return value!;
}
