import { describe, expect, it } from 'vitest';
import { cpuTicks, parseCommandStats, type ScaleOutResult, scaleOutSection } from '@/scripts/bench/scale-out-section';

describe('the scale-out benchmark readings', () => {
  it('counts every command of INFO commandstats, and the script calls apart', () => {
    const info = [
      '# Commandstats',
      'cmdstat_evalsha:calls=1000,usec=5000,usec_per_call=5.00,rejected_calls=0,failed_calls=0',
      'cmdstat_eval:calls=20,usec=30,usec_per_call=1.50,rejected_calls=0,failed_calls=0',
      'cmdstat_hset:calls=3000,usec=3000,usec_per_call=1.00,rejected_calls=0,failed_calls=0',
      'cmdstat_config|get:calls=6,usec=21,usec_per_call=3.50,rejected_calls=0,failed_calls=0',
      'cmdstat_bzpopmin:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
      '',
    ].join('\r\n');
    expect(parseCommandStats(info)).toEqual({ commands: 4033, scripts: 1020 });
  });

  it('reads user and system time from /proc/<pid>/stat, whatever the process name holds', () => {
    const after = 'S 1 4242 4242 0 -1 4194560 1200 0 3 0 250 75 0 0 20 0 11 0 123456 1000000 5000';
    expect(cpuTicks(`4242 (node) ${after}`)).toBe(325);
    expect(cpuTicks(`4242 (a (b) c) ${after}`)).toBe(325);
  });
});

describe('the scale-out section', () => {
  const result: ScaleOutResult = {
    opts: { jobs: 9_000, rounds: 3, processes: [1, 2], concurrency: 50, ceilingCalls: 100_000 },
    types: ['quota-check', 'webhook-dispatch', 'index-rebalance'],
    rows: [
      {
        backend: 'one redis-server',
        processes: 1,
        jobsPerSec: [900, 1_100, 1_000],
        scriptsPerJob: 1,
        commandsPerJob: 32,
        redisCpu: 0.5,
        workerCpu: 0.9,
      },
      {
        backend: 'one redis-server',
        processes: 2,
        jobsPerSec: [1_500, 1_400, 1_600],
        scriptsPerJob: 1.02,
        commandsPerJob: 32.5,
        redisCpu: 0.7,
        workerCpu: 1.2,
      },
      {
        backend: 'three-master cluster',
        processes: 1,
        jobsPerSec: [800, 800, 800],
        scriptsPerJob: 1,
        commandsPerJob: 32,
        redisCpu: undefined,
        workerCpu: 0.8,
      },
      {
        backend: 'three-master cluster',
        processes: 2,
        jobsPerSec: [400, 400, 400],
        scriptsPerJob: 1,
        commandsPerJob: 33,
        redisCpu: 0.6,
        workerCpu: 1,
      },
    ],
    placement: [
      { type: 'quota-check', master: 'master 1' },
      { type: 'webhook-dispatch', master: 'master 2' },
      { type: 'index-rebalance', master: 'master 3' },
    ],
    ceiling: { clients: 50, pipeline: 16, emptyScript: 400_000, jobShaped: 10_000, jobShapedCommands: 90_000 },
    seconds: 120,
    load: { start: 1, end: 2 },
  };
  const table = (s: string) => s.split('\n').filter((l) => l.startsWith('| one') || l.startsWith('| three'));

  it("gives each configuration's median, its ratio to one process on the same Redis, and its share of the script ceiling", () => {
    expect(table(scaleOutSection(result))).toEqual([
      '| one redis-server | 1 | 1,000 | 1.00 | 900 / 1,100 / 1,000 | 1.00 | 32.0 | 10 % | 50 % | 90 % |',
      '| one redis-server | 2 | 1,500 | 1.50 | 1,500 / 1,400 / 1,600 | 1.02 | 32.5 | 15 % | 70 % | 120 % |',
      '| three-master cluster | 1 | 800 | 1.00 | 800 / 800 / 800 | 1.00 | 32.0 | 8 % | n/a | 80 % |',
      '| three-master cluster | 2 | 400 | 0.50 | 400 / 400 / 400 | 1.00 | 33.0 | 4 % | 60 % | 100 % |',
    ]);
  });

  it('names the ceiling, the placement and the jobs per second the ceiling stands for', () => {
    const text = scaleOutSection(result);
    expect(text).toContain('**400,000 calls/s**');
    expect(text).toContain('**10,000 calls/s** (90,000 commands/s');
    expect(text).toContain('`redis-benchmark -c 50 -P 16`');
    expect(text).toContain('fall on 3 different master(s)');
    expect(text).toContain('the job-shaped ceiling stands for about 10,000 jobs/s');
    expect(text).toContain('`WORKER_TYPES=quota-check,webhook-dispatch,index-rebalance`');
  });

  it('compares with the fewest processes run when one is not among them', () => {
    const section = scaleOutSection({
      ...result,
      opts: { ...result.opts, processes: [2] },
      rows: result.rows.filter((r) => r.processes === 2),
    });
    expect(section).toContain('| × 2 processes |');
    expect(table(section).map((l) => l.split(' | ')[3])).toEqual(['1.00', '1.00']);
  });
});
