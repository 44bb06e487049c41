import { CronExpressionParser } from 'cron-parser';
import type { Bullpen } from '@/lib/bullpen';
import { TWO_WORKER_SCHEDULE as SCHEDULE } from '../fixtures/two-worker-schedule';

/**
 * What the schedule tests with several worker processes share: the fixtures' record of
 * each run of tests/fixtures/two-worker-schedule.ts, and that schedule's occurrences
 * computed by cron-parser, not by the code under test.
 */

/** One run as the fixtures' handlers record it on `<prefix>:runs`: `<occurrence>|<pid>|<started at>`. */
export interface Run {
  at: number;
  pid: number;
  startedAt: number;
}

/** The schedule's occurrences from `from` to `to` (both included). */
export function occurrencesBetween(from: number, to: number): number[] {
  const it = CronExpressionParser.parse(SCHEDULE.pattern, { currentDate: new Date(from - 1), tz: SCHEDULE.tz });
  const out: number[] = [];
  for (let t = it.next().getTime(); t <= to; t = it.next().getTime()) out.push(t);
  return out;
}

/** The first `n` occurrences after `after`. */
export function nextOccurrences(after: number, n: number): number[] {
  const it = CronExpressionParser.parse(SCHEDULE.pattern, { currentDate: new Date(after), tz: SCHEDULE.tz });
  return Array.from({ length: n }, () => it.next().getTime());
}

export async function readRuns(bullpen: Bullpen, prefix: string): Promise<Run[]> {
  return (await bullpen.redis.lrange(`${prefix}:runs`, 0, -1)).map((line) => {
    const [at, pid, startedAt] = line.split('|').map(Number);
    return { at, pid, startedAt };
  });
}

/** The runs as one line for an assertion's message: `<occurrence>|<pid>|+<delay>ms, ...`. */
export function describeRuns(runs: Run[]): string {
  return runs.map((r) => `${r.at}|${r.pid}|+${r.startedAt - r.at}ms`).join(', ');
}
