import { describe, expect, it } from 'vitest';
import { profileSide } from '@/scripts/bench/runtime-profile';
import { useTestRedis } from '../helpers/use-test-redis';

const JOBS = 2_000;

/**
 * The profile section's two worker processes, small: each runs its jobs under
 * `node --cpu-prof`, reports its window, and its profile is split by cost. The shipped
 * worker's samples include the runtime's per-job work; plain BullMQ's include none of it.
 */
describe('the runtime profile', () => {
  const server = useTestRedis();

  it('splits the shipped worker’s profile and plain BullMQ’s by cost', { timeout: 240_000 }, async () => {
    const bullpen = await profileSide(server.redis, JOBS, 'bullpen');
    const plain = await profileSide(server.redis, JOBS, 'plain');
    for (const side of [bullpen, plain]) {
      expect(side.rate).toBeGreaterThan(0);
      expect(side.cpuPerJob).toBeGreaterThan(0);
      expect(side.busyPerJob).toBeGreaterThan(0);
      // BullMQ alone allocates some 23 KB a job (its Job object, the script's arguments and
      // reply): counting only the heap's growth since the last collection would show a tenth.
      expect(side.heapBytesPerJob).toBeGreaterThan(10_000);
      expect(side.gcs).toBeGreaterThan(0);
      // BullMQ's own work is on both sides.
      expect(side.perJob.bullmq).toBeGreaterThan(0);
      expect(side.perJob.ioredis).toBeGreaterThan(0);
    }
    // The time limit and the payload check per job: the runtime's, never plain BullMQ's.
    expect(bullpen.perJob.validation).toBeGreaterThan(0);
    expect(bullpen.perJob.timeout).toBeGreaterThan(0);
    for (const id of ['validation', 'timeout', 'history', 'heartbeat', 'schedules', 'attempts']) {
      expect(plain.perJob[id] ?? 0, id).toBe(0);
    }
    // The benchmark's payloads are as the dispatcher enqueues them: the compiled check takes them, not zod.
    expect(bullpen.files.validation?.map((f) => f.file)).toContain('lib/jobs/json-fast-check.ts');
  });
});
