import { loadavg } from 'node:os';
import { fmt } from './stats';

/** A 1-minute load average above this at a section's start means other work shares the cores. */
export const QUIET_LOAD = 1.0;

/** What the machine was doing around one section, as the section reports it. */
export interface SectionLoad {
  /** 1-minute load average when the section started (after any wait). */
  start: number;
  end: number;
  /** Seconds spent waiting for the load to fall before starting. */
  waitedS: number;
  /** The load was still over QUIET_LOAD when the wait ran out: the figures were taken on a busy machine. */
  loaded: boolean;
}

export interface QuietWaitOptions {
  /** The 1-minute load average now. @defaultValue os.loadavg()[0] */
  read?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** How long to wait at most. @defaultValue BENCH_LOAD_WAIT_S (120) seconds */
  limitMs?: number;
  /** How often to look again. @defaultValue 5000 */
  stepMs?: number;
}

/**
 * Waits, up to `limitMs`, for the 1-minute load average to fall to QUIET_LOAD or below,
 * looking every `stepMs`. Resolves with the load it started at, the seconds it waited
 * and whether the machine was still loaded: a benchmark reports, it does not refuse.
 */
export async function waitForQuiet(opts: QuietWaitOptions = {}): Promise<{ load: number; waitedS: number; loaded: boolean }> {
  const read = opts.read ?? (() => loadavg()[0]);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  const limitMs = opts.limitMs ?? Number(process.env.BENCH_LOAD_WAIT_S ?? 120) * 1_000;
  const stepMs = opts.stepMs ?? 5_000;
  const t0 = now();
  let load = read();
  while (load > QUIET_LOAD && now() - t0 < limitMs) {
    await sleep(Math.min(stepMs, limitMs - (now() - t0)));
    load = read();
  }
  return { load, waitedS: (now() - t0) / 1_000, loaded: load > QUIET_LOAD };
}

/**
 * Runs one benchmark section after waiting for a quiet machine, and appends to its text
 * the load it ran under (docs/benchmarks.md: every section says it).
 */
export async function withMachineLoad(name: string, run: () => Promise<string>, read: () => number = () => loadavg()[0]): Promise<string> {
  const quiet = await waitForQuiet({ read });
  if (quiet.waitedS > 0) console.log(`  ${name}: waited ${fmt(quiet.waitedS, 0)} s for the load (${fmt(quiet.load, 2)} now)`);
  const text = await run();
  return `${text.trimEnd()}\n\n${loadLine({ start: quiet.load, end: read(), waitedS: quiet.waitedS, loaded: quiet.loaded })}\n`;
}

/** The sentence a section ends with. */
export function loadLine(l: SectionLoad): string {
  const waited = l.waitedS >= 1 ? ` after waiting ${fmt(l.waitedS, 0)} s for it to fall` : '';
  const verdict = l.loaded
    ? ` **Ran loaded**: the load was over ${fmt(QUIET_LOAD, 1)} when the wait ran out, so other work shared the cores; compare this section's ratios, not its absolute figures.`
    : '';
  return `Machine load (1-minute load average): ${fmt(l.start, 2)} at the start${waited}, ${fmt(l.end, 2)} at the end.${verdict}`;
}
