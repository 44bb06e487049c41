import { useTestRedis } from '../helpers/use-test-redis';
import { describe, expect, it } from 'vitest';
import { readyClient } from '@/lib/redis/connection';
import { ScheduleService } from '@/lib/schedules/schedule-service';
import { makeBullpen } from '../helpers/bullpen';
import { uniquePrefix } from '../helpers/redis';
import { spawnFixture, type SpawnedWorker } from '../helpers/worker-process';

/** The fixture's schedule (tests/fixtures/schedule-worker.ts), to read its last run here. */
const EVERY_SECOND = {
  name: 'every-second',
  jobType: 'quota-check',
  pattern: '* * * * * *',
  tz: 'UTC',
  data: {},
  description: 'A test schedule that fires every second.',
} as const;

/** How long both workers run the every-second schedule together. */
const RUN_MS = 4_500;

describe('a schedule with two worker processes', () => {
  const server = useTestRedis();

  it('runs each occurrence exactly once', async () => {
    const prefix = uniquePrefix('sched');
    const env = { REDIS_PORT: String(server.redis.port), BULLPEN_PREFIX: prefix, MAX_RUN_MS: '30000' };
    const workers: SpawnedWorker[] = [spawnFixture('schedule-worker.ts', env), spawnFixture('schedule-worker.ts', env)];
    try {
      await Promise.all(workers.map((w) => w.ready));
      await new Promise((r) => setTimeout(r, RUN_MS));
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

    const bullpen = makeBullpen(server.redis, { prefix });
    try {
      await readyClient(bullpen.redis);
      const runs = await bullpen.redis.lrange(`${prefix}:runs`, 0, -1);
      const occurrences = runs.map((r) => Number(r.split('|')[0]));
      expect(occurrences.length).toBeGreaterThanOrEqual(3);
      expect(occurrences.every((o) => Number.isInteger(o) && o % 1_000 === 0)).toBe(true);
      // The point of the test: no occurrence ran twice.
      expect(new Set(occurrences).size).toBe(occurrences.length);
      expect(await bullpen.redis.llen(`${prefix}:dead`)).toBe(0);

      // The workers' hooks recorded the last run.
      const schedules = new ScheduleService(bullpen, { definitions: [{ ...EVERY_SECOND, data: {} }], handledTypes: ['quota-check'] });
      const [summary] = await schedules.list();
      expect(summary.lastRun).toMatchObject({ trigger: 'schedule', outcome: 'completed' });
      expect(summary.lastRun!.jobId).toBe(`repeat:every-second:${summary.lastRun!.at}`);
      expect(occurrences).toContain(summary.lastRun!.at);
    } finally {
      await bullpen.close();
    }
  });
});
