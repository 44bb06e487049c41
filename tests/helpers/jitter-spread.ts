import { expect } from 'vitest';

/**
 * How many retries a test samples to show full jitter's spread. Each delay is
 * floor(random() * ceiling), below half the ceiling with probability exactly 1/2; the
 * delays read back (`retryDelays`) may come out up to δ low, δ being the one Redis
 * round trip between the worker's clock reading and its script, a few ms. With δ under
 * 50 ms a correct runtime fails `expectFullJitter` with probability at most
 * 0.55^24 + 0.5^24 ≈ 6.4e-7 (all read in the lower half, or all in the upper).
 */
export const JITTER_SAMPLES = 24;

/** The one command `retryDelays` needs of a Redis client. */
interface StreamReader {
  xrange(key: string, start: string, end: string): Promise<Array<[id: string, fields: string[]]>>;
}

/**
 * Each job's retry delays in order, read from its queue's event stream: BullMQ's `delayed`
 * event carries the time the job is due (the worker's clock when the attempt failed, plus
 * the delay), and its stream id the Redis clock when the script ran, just after; so each
 * delay reads at most one round trip low. BullMQ keeps the delay on the job only while it
 * waits (promotion resets it to 0), too briefly to poll for.
 *
 * A drawn delay of 0 (floor(random() * 1,000) is 0 once in 1,000 draws) is no `delayed`
 * event: BullMQ then retries at once (job.js's moveToFailed calls retryJob, not
 * moveToDelayed), and the stream shows `waiting` with `prev` `active`. That reads as 0
 * here. The only other script that writes that pair is moveJobFromActiveToWait, a worker's
 * manual rate limit, which these tests' workers never set.
 */
export async function retryDelays(redis: StreamReader, eventsKey: string): Promise<Map<string, number[]>> {
  const delays = new Map<string, number[]>();
  for (const [id, fields] of await redis.xrange(eventsKey, '-', '+')) {
    const f = new Map<string, string>();
    for (let i = 0; i < fields.length; i += 2) f.set(fields[i], fields[i + 1]);
    const jobId = f.get('jobId');
    if (!jobId) continue;
    const event = f.get('event');
    let delay: number;
    if (event === 'delayed') delay = Number(f.get('delay')) - Number(id.split('-')[0]);
    else if (event === 'waiting' && f.get('prev') === 'active') delay = 0;
    else continue;
    delays.set(jobId, [...(delays.get(jobId) ?? []), delay]);
  }
  return delays;
}

/**
 * Asserts what full jitter promises of delays drawn below `ceilingMs`: each within
 * [0, ceilingMs] (the read may be a round trip low, never high), and spread over the
 * window, some in its lower half and some in its upper (a fixed delay, a delay with a
 * floor, or jitter over a fraction of the window puts them all in one).
 */
export function expectFullJitter(delays: readonly number[], ceilingMs: number): void {
  expect(delays).toHaveLength(JITTER_SAMPLES);
  const shown = `delays ${delays.join(', ')} of [0, ${ceilingMs})`;
  for (const d of delays) {
    expect(d, shown).toBeGreaterThanOrEqual(-50);
    expect(d, shown).toBeLessThanOrEqual(ceilingMs);
  }
  const lower = delays.filter((d) => d < ceilingMs / 2).length;
  expect(lower, `${shown}: none in the lower half`).toBeGreaterThan(0);
  expect(lower, `${shown}: none in the upper half`).toBeLessThan(JITTER_SAMPLES);
}

/** The delay of each job's first retry (`retryDelays`), in the jobs' order. */
export async function firstRetryDelays(redis: StreamReader, eventsKey: string, jobs: ReadonlyArray<{ id?: string }>): Promise<number[]> {
  const delays = await retryDelays(redis, eventsKey);
  return jobs.map((j) => {
    const first = delays.get(j.id!)?.[0];
    if (first === undefined) throw new Error(`no delayed event for job ${j.id} in ${eventsKey}`);
    return first;
  });
}
