import { describe, expect, it } from 'vitest';
import { attribute, type CpuProfile, sourceName } from '@/scripts/bench/cpu-profile';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

/**
 * (root) → processTicks (node) → process (processor.ts) → safeParse (zod)
 *                                                     → race (job-run.ts) → setTimeout (node:timers)
 *        → moveToFinished (bullmq) → write (ioredis)
 *        → (garbage collector), (idle)
 */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 6, 8, 9]),
    frame(2, 'processTicksAndRejections', 'node:internal/process/task_queues', [3]),
    frame(3, 'process', 'file:///repo/lib/runtime/processor.ts', [4, 5]),
    frame(4, 'safeParse', 'file:///repo/node_modules/zod/v4/core/parse.js'),
    frame(5, 'race', 'file:///repo/lib/runtime/job-run.ts', [10]),
    frame(6, 'moveToFinished', 'file:///repo/node_modules/bullmq/dist/esm/classes/scripts.js', [7]),
    frame(7, 'write', 'file:///repo/node_modules/ioredis/built/Redis.js'),
    frame(8, '(garbage collector)', ''),
    frame(9, '(idle)', ''),
    frame(10, 'setTimeout', 'node:timers'),
  ],
  startTime: 1_000,
  endTime: 2_000,
  // One sample each, 100 µs apart; the first (at 1,100) and the last (at 2,000) fall outside the window.
  samples: [9, 4, 10, 3, 7, 6, 8, 2, 9, 4],
  timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
};

const rules = [
  { id: 'validation', claims: (url: string) => url.includes('/node_modules/zod/') },
  { id: 'timeout', claims: (url: string, fn: string) => url.endsWith('/job-run.ts') && fn === 'race' },
  { id: 'processor', claims: (url: string) => url.includes('/lib/') && !url.includes('/node_modules/') },
  { id: 'bullmq', claims: (url: string) => url.includes('/node_modules/bullmq/') },
  { id: 'ioredis', claims: (url: string) => url.includes('/node_modules/ioredis/') },
];

describe('the CPU profile split', () => {
  it('gives a native frame named after an Object.prototype method to the package that called it', () => {
    // Number.prototype.toString under ioredis: not a cost row named after Object.prototype.toString.
    const native: CpuProfile = {
      nodes: [
        frame(1, '(root)', '', [2]),
        frame(2, 'write', 'file:///repo/node_modules/ioredis/built/Redis.js', [3]),
        frame(3, 'toString', ''),
      ],
      startTime: 0,
      endTime: 300,
      samples: [3, 3, 3],
      timeDeltas: [100, 100, 100],
    };
    expect(Object.fromEntries(attribute(native, rules, 0, 300, '/repo').micros)).toEqual({ ioredis: 300 });
  });

  it('gives each sample in the window to the innermost frame a rule claims', () => {
    const split = attribute(profile, rules, 1_150, 1_950, '/repo');
    expect(Object.fromEntries(split.micros)).toEqual({
      validation: 100,
      // setTimeout is Node's, called by the timeout's race: the timeout's.
      timeout: 100,
      processor: 100,
      ioredis: 100,
      bullmq: 100,
      gc: 100,
      // A stack no rule claims: Node.js's own.
      other: 100,
      idle: 100,
    });
    expect(split.total).toBe(800);
    expect(Object.fromEntries(split.files.get('processor') ?? [])).toEqual({ 'lib/runtime/processor.ts': 100 });
    expect(Object.fromEntries(split.files.get('validation') ?? [])).toEqual({ zod: 100 });
  });

  it('names a package by its name and a file of the repository by its path', () => {
    expect(sourceName('file:///repo/node_modules/@scope/pkg/lib/x.js', '/repo')).toBe('@scope/pkg');
    expect(sourceName('file:///repo/lib/jobs/envelope.ts', '/repo')).toBe('lib/jobs/envelope.ts');
  });
});
