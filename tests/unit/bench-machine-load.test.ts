import { describe, expect, it } from 'vitest';
import { loadLine, waitForQuiet, withMachineLoad } from '@/scripts/bench/machine-load';

/** A clock that only moves when the wait sleeps, and a load that reads from a script. */
function machine(loads: number[]) {
  let t = 0;
  const slept: number[] = [];
  let i = 0;
  return {
    slept,
    read: () => loads[Math.min(i++, loads.length - 1)],
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
  };
}

describe('waitForQuiet', () => {
  it('starts at once on a quiet machine', async () => {
    const m = machine([0.4]);
    expect(await waitForQuiet({ ...m, limitMs: 120_000, stepMs: 5_000 })).toEqual({ load: 0.4, waitedS: 0, loaded: false });
    expect(m.slept).toEqual([]);
  });

  it('waits, step by step, until the load falls to 1.0', async () => {
    const m = machine([2.5, 1.8, 1.2, 1.0, 0.2]);
    expect(await waitForQuiet({ ...m, limitMs: 120_000, stepMs: 5_000 })).toEqual({ load: 1.0, waitedS: 15, loaded: false });
    expect(m.slept).toEqual([5_000, 5_000, 5_000]);
  });

  it('gives up at the limit and says the machine was loaded', async () => {
    const m = machine([3]);
    const r = await waitForQuiet({ ...m, limitMs: 12_000, stepMs: 5_000 });
    expect(r).toEqual({ load: 3, waitedS: 12, loaded: true });
    // The last step is cut to the limit rather than overshooting it.
    expect(m.slept).toEqual([5_000, 5_000, 2_000]);
  });
});

describe('the load line', () => {
  it('says the start and end load, and a loaded run in bold', () => {
    expect(loadLine({ start: 0.5, end: 1.25, waitedS: 0, loaded: false })).toBe(
      'Machine load (1-minute load average): 0.50 at the start, 1.25 at the end.',
    );
    const loaded = loadLine({ start: 2.4, end: 2.1, waitedS: 120, loaded: true });
    expect(loaded).toContain('2.40 at the start after waiting 120 s for it to fall, 2.10 at the end.');
    expect(loaded).toContain('**Ran loaded**');
  });

  it('is appended to a section run on a quiet machine', async () => {
    const loads = [0.3, 0.7];
    let i = 0;
    const text = await withMachineLoad(
      'x',
      async () => '## X\n\nfigures\n',
      () => loads[i++],
    );
    expect(text).toBe('## X\n\nfigures\n\nMachine load (1-minute load average): 0.30 at the start, 0.70 at the end.\n');
  });
});
