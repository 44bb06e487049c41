import { useTestRedis } from '../helpers/use-test-redis';
import { describe, expect, it } from 'vitest';
import { readyClient } from '@/lib/redis/connection';
import { ScheduleService } from '@/lib/schedules/schedule-service';
import { testBullpen } from '../helpers/test-bullpen';
import { uniquePrefix } from '../helpers/redis';
import { spawnFixture, type SpawnedWorker } from '../helpers/spawn-worker';
import { TWO_WORKER_SCHEDULE as SCHEDULE } from '../fixtures/two-worker-schedule';
import { describeRuns, nextOccurrences, occurrencesBetween, readRuns } from '../helpers/schedule-runs';

/** Consecutive occurrences, from the first one after both workers are up, that must each run once. */
const WINDOW = 4;
/**
 * How long after the window's last occurrence the test keeps waiting for it, and for
 * both workers to have taken a run, before it stops the workers and reports what is missing.
 */
const GRACE_MS = 20_000;

describe('a schedule with two worker processes', () => {
  const server = useTestRedis();

  it('runs every occurrence exactly once, and both workers take runs', async () => {
    const prefix = uniquePrefix('sched');
    const env = { REDIS_PORT: String(server.redis.port), BULLPEN_PREFIX: prefix, MAX_RUN_MS: '60000' };
    const workers: SpawnedWorker[] = [spawnFixture('schedule-worker.ts', env), spawnFixture('schedule-worker.ts', env)];
    const pids = workers.map((w) => w.child.pid!);
    const bullpen = testBullpen(server.redis, { prefix });
    try {
      let window: number[];
      try {
        await Promise.all(workers.map((w) => w.ready));
        await readyClient(bullpen.redis);
        // A worker is ready only after bootstrapping, so the scheduler exists now: every
        // occurrence from the next one on must run, once.
        window = nextOccurrences(Date.now(), WINDOW);
        const deadline = window.at(-1)! + GRACE_MS;
        for (;;) {
          const runs = await readRuns(bullpen, prefix);
          const ran = new Set(runs.map((r) => r.at));
          const by = new Set(runs.map((r) => r.pid));
          if (window.every((t) => ran.has(t)) && pids.every((p) => by.has(p))) break;
          // Past the deadline the assertions below say what is missing.
          if (Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        for (const w of workers) w.child.kill('SIGTERM');
        expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
      } finally {
        for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      }

      // Both bootstrapped: exactly one created the scheduler; the other skipped (lock held)
      // or found the same state and left it alone.
      const actions = workers.map((w) => {
        const line = w
          .output()
          .split('\n')
          .find((l) => l.includes('"event":"ready"'))!;
        const report = JSON.parse(line).report as { applied: boolean; schedules: Array<{ action: string }> };
        return report.applied ? report.schedules[0].action : 'skipped';
      });
      expect(actions.filter((a) => a === 'created')).toHaveLength(1);
      expect(actions.filter((a) => a !== 'created')[0]).toMatch(/^(skipped|unchanged)$/);

      // Read after both stopped, so a run that finished while stopping counts too.
      const runs = await readRuns(bullpen, prefix);
      const occurrences = runs.map((r) => r.at).sort((a, b) => a - b);
      const record = describeRuns(runs);
      // Exactly once: the runs are the pattern's occurrences from the first run to the last,
      // each once — none missed in between, none twice, none off the pattern...
      expect(occurrences.length, `no runs (window ${window!.join(', ')})`).toBeGreaterThan(0);
      expect(occurrences, `runs (occurrence|pid|started after it): ${record}`).toEqual(
        occurrencesBetween(occurrences[0], occurrences.at(-1)!),
      );
      // ...and they cover the window: none missed at its start or end either.
      expect(
        window!.filter((t) => !occurrences.includes(t)),
        `missed; runs: ${record}`,
      ).toEqual([]);
      // Both workers took runs, and nothing else did.
      expect(new Set(runs.map((r) => r.pid)), `runs: ${record}`).toEqual(new Set(pids));
      expect(await bullpen.redis.llen(`${prefix}:dead`)).toBe(0);

      // The workers' hooks recorded the last run.
      const schedules = new ScheduleService(bullpen, { definitions: [{ ...SCHEDULE, data: {} }], handledTypes: ['tidy'] });
      const [summary] = await schedules.list();
      expect(summary.lastRun).toMatchObject({ trigger: 'schedule', outcome: 'completed' });
      expect(summary.lastRun!.jobId).toBe(`repeat:${SCHEDULE.name}:${summary.lastRun!.at}`);
      expect(occurrences).toContain(summary.lastRun!.at);
    } finally {
      await bullpen.close();
    }
  });
});
