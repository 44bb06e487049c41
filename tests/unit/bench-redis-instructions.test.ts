import { describe, expect, it } from 'vitest';
import { instructionsIn, type RedisInstructions, redisInstructionsSection } from '@/scripts/bench/redis-instructions';

const side = (perJob: number, idleCommandsPerSec = 0.5, connections = 3) => ({ perJob, idlePerSec: 1e6, idleCommandsPerSec, connections });
const result = (bullpen: number): RedisInstructions => ({
  jobs: 2_000,
  rounds: 2,
  sides: { plain: side(450_000), plainMetrics: side(480_000), bullpen: side(bullpen, 60, 5) },
});

describe('Redis instructions per job', () => {
  it('reads the total of a callgrind dump, and refuses a dump without one', () => {
    const dump = ['# callgrind format', 'events: Ir', 'fn=main', '0 12', 'summary: 554498', ''].join('\n');
    expect(instructionsIn(dump)).toBe(554_498);
    expect(instructionsIn(dump.replace('summary:', 'totals:'))).toBe(554_498);
    expect(() => instructionsIn('events: Ir\nfn=main\n0 12\n')).toThrow(/instruction total/);
  });

  it('says the metrics are all Bullpen adds only when its jobs cost Redis no more than plain BullMQ’s with them', () => {
    const same = redisInstructionsSection(result(485_000));
    expect(same).toContain('| Bullpen runtime | 485.0k | 1.078 | 1.00M | 60.0 | 5 |');
    expect(same).toContain('The metrics are all the per-job work the Bullpen side adds to Redis');
    expect(same).not.toContain('beyond the metrics');

    const more = redisInstructionsSection(result(528_000));
    expect(more).toContain('**Bullpen adds 10.0 % beyond the metrics**');
    expect(more).not.toContain('The metrics are all');
  });

  it('says when it could not measure', () => {
    expect(redisInstructionsSection(undefined)).toContain('Not measured: valgrind is not installed');
  });
});
