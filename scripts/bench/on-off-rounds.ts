import { fmt, median, pairedRatio } from './stats';

/** Jobs/s of a feature's rounds with it on and off, in the same run, and what they give. */
export interface OnOffRounds {
  onJobsPerSec: number[];
  offJobsPerSec: number[];
  /** median(on) / median(off). */
  ratio: number;
  /** The median of each round's on/off ratio: the two sides of a round ran seconds apart, so a drifting machine cancels out. */
  pairedRatio: number;
}

/**
 * A feature's cost as jobs/s with it off and on (the history and attempt-record
 * sections): a warm-up round each, not counted (JIT, Redis's allocator, the scripts'
 * first load), then `rounds` pairs whose order alternates, so that a warming or noisy
 * machine favours neither side.
 */
export async function onOffRounds(
  name: string,
  opts: { jobs: number; rounds: number },
  round: (kind: 'on' | 'off', label: string, jobs: number) => Promise<number>,
): Promise<OnOffRounds> {
  const onJobsPerSec: number[] = [];
  const offJobsPerSec: number[] = [];
  for (const kind of ['off', 'on'] as const) {
    console.log(
      `  warm-up ${name} ${kind.padEnd(3)} ${fmt(await round(kind, 'warmup', Math.ceil(opts.jobs / 2)), 0)} jobs/s (not counted)`,
    );
  }
  for (let r = 0; r < opts.rounds; r++) {
    const order = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const kind of order) {
      const rate = await round(kind, String(r), opts.jobs);
      (kind === 'on' ? onJobsPerSec : offJobsPerSec).push(rate);
      console.log(`  round ${r + 1} ${name} ${kind.padEnd(3)} ${fmt(rate, 0)} jobs/s`);
    }
  }
  return {
    onJobsPerSec,
    offJobsPerSec,
    ratio: median(onJobsPerSec) / median(offJobsPerSec),
    pairedRatio: pairedRatio(onJobsPerSec, offJobsPerSec),
  };
}
