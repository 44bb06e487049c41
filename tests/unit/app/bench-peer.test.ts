import { describe, expect, it } from 'vitest';
import { RETENTION } from '@/lib/jobs/queues';
import { JOB_TYPE_NAMES, jobType } from '../../helpers/shipped-jobs';
import { hiddenFields } from '@/scripts/bench/http-sign-in';
import { type ObserverBenchResult, type ObserverRound, observerSection } from '@/scripts/bench/observer';
import { type PeerBenchResult, peerSection } from '@/scripts/bench/peer';
import { planBacklog, seedPayload } from '@/scripts/bench/peer-seed';

describe('the peer backlog plan', () => {
  const plan = planBacklog(1_000_000);
  const total = (q: (typeof plan)[number]) => q.prioritized + q.delayed + q.completed + q.failed;

  it('spreads exactly the million jobs over every queue, the busiest first', () => {
    expect(plan.map((q) => q.type).sort()).toEqual([...JOB_TYPE_NAMES].sort());
    expect(plan.reduce((s, q) => s + total(q), 0)).toBe(1_000_000);
    expect(plan[0].type).toBe('webhook-dispatch');
    const unfinished = plan.map((q) => q.prioritized + q.delayed);
    for (let i = 1; i < unfinished.length; i++) expect(unfinished[i]).toBeLessThanOrEqual(unfinished[i - 1]);
  });

  it('keeps finished jobs within each queue’s retention, and a twentieth of the unfinished delayed', () => {
    for (const q of plan) {
      expect(q.completed).toBe(RETENTION.completed);
      expect(q.failed).toBeLessThanOrEqual(RETENTION.failed);
      expect(q.delayed).toBe(Math.round((q.prioritized + q.delayed) * 0.05));
    }
    const waiting = plan.reduce((s, q) => s + q.prioritized, 0);
    expect(waiting / 1_000_000).toBeGreaterThan(0.9);
  });

  it('refuses a total smaller than the finished jobs alone', () => {
    expect(() => planBacklog(5_000)).toThrow(/smaller than the queues' finished jobs/);
  });

  it('seeds each queue with its type’s example, valid as the dispatcher will check', () => {
    for (const type of JOB_TYPE_NAMES) {
      expect(seedPayload(type), type).toBe(jobType(type).example);
      const parsed = jobType(type).schema.safeParse(seedPayload(type));
      expect(parsed.success, `${type}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
    }
  });
});

describe('the sign-in form over HTTP', () => {
  // As `next start` renders it (React's progressive-enhancement fields for a useActionState form).
  const html =
    '<form data-testid="sign-in-form" action="" encType="multipart/form-data" method="POST">' +
    '<input type="hidden" name="$ACTION_REF_1"/>' +
    '<input type="hidden" name="$ACTION_1:0" value="{&quot;id&quot;:&quot;60b9f1&quot;,&quot;bound&quot;:&quot;$@1&quot;}"/>' +
    '<input type="hidden" name="$ACTION_1:1" value="[null]"/>' +
    '<input type="hidden" name="$ACTION_KEY" value="k0fc0b4"/>' +
    '<input type="hidden" name="next" value="/queues?a=1&amp;b=2"/>' +
    '<input id="username" autoComplete="username" name="username" value=""/>' +
    '<input id="password" type="password" name="password"/></form>';

  it('posts back every hidden field, decoded, and none of the visible ones', () => {
    expect(hiddenFields(html)).toEqual([
      ['$ACTION_REF_1', ''],
      ['$ACTION_1:0', '{"id":"60b9f1","bound":"$@1"}'],
      ['$ACTION_1:1', '[null]'],
      ['$ACTION_KEY', 'k0fc0b4'],
      ['next', '/queues?a=1&b=2'],
    ]);
  });

  it('fails loudly on a page without the form or without the action’s fields', () => {
    expect(() => hiddenFields('<p>Sign in</p>')).toThrow(/no sign-in form/);
    expect(() => hiddenFields('<form data-testid="sign-in-form"><input type="hidden" name="next" value="/"/></form>')).toThrow(
      /no server action fields/,
    );
  });
});

function peerResult(oursMs: number[], theirsMs: number[]): PeerBenchResult {
  const samples = (ms: number[], commands: number, bytes: number, wireBytes?: number) =>
    ms.map((x) => ({ ms: x, commands, bytes, ...(wireBytes === undefined ? {} : { wireBytes }) }));
  return {
    backlog: { queues: planBacklog(1_000_000), total: 1_000_000, ms: { finished: 1_000, unfinished: 20_000 } },
    redisMemory: '1.00G',
    samples: oursMs.length,
    timings: {
      ours: samples(oursMs, 345, 57_000, 8_192),
      oursCached: samples([1, 1, 1], 1, 57_000),
      oursCold: samples([30, 40, 50], 546, 57_000),
      theirs: samples(theirsMs, 288, 10_000, 10_000),
      oursRead: samples([4, 4, 4], 343, 57_000),
      theirsRead: samples([2, 2, 2], 288, 10_000),
    },
    cores: 2,
    load: { start: 0.5, end: 0.7 },
    seedS: 30,
    boardVersion: '9.10.1',
    cleanupS: 14,
    totalS: 120,
  };
}

describe('the peer section', () => {
  it('compares the medians of the HTTP rows and judges the 0.5 target', () => {
    const met = peerSection(peerResult([9, 10, 60], [20, 25, 30]));
    expect(met.split('\n', 1)[0]).toBe('## Peer: the overview beside Bull Board');
    expect(met).toContain('**Ratio of medians over HTTP, ours as a polling tab gets it / theirs: 0.40** (target ≤ 0.5: met)');
    // The cold request and the read itself are stated beside it, not hidden.
    expect(met).toContain('Cold, ours / theirs: 1.60; in-process, our read / theirs: 2.00');
    expect(met).toMatch(/\| Bullpen, cold \| `\/api\/live\/overview` after 12\.0 s unpolled \| 40\.0 \|/);
    // The JSON's size, and what went over the wire (gzipped on our side), for the HTTP rows only.
    expect(met).toContain('| Bullpen overview | `/api/live/overview` | 10.0 | 60.0 | 345 | 55.7 | 8.0 | 3 |');
    expect(met).toContain('| Bull Board, in-process | `queuesHandler` | 2.0 | 2.0 | 288 | 9.8 | – | 3 |');
    const missed = peerSection(peerResult([30, 31, 32], [20, 25, 30]));
    expect(missed).toContain('ours as a polling tab gets it / theirs: 1.24** (target ≤ 0.5: **not met**)');
  });
});

describe('the observer section', () => {
  const round = (clients: number, jobsPerSec: number, target: ObserverRound['target'] = clients ? 'dashboard' : 'none'): ObserverRound => ({
    target,
    clients,
    jobsPerSec,
    cpu: { worker: 1, redis: 0.5, dashboard: clients ? 0.3 : 0, clients: clients ? 0.1 : 0, steal: jobsPerSec < 9_000 ? 0.25 : 0.01 },
    redisOps: 1_000,
  });
  const result = (quiet: number[], busy: number[], bare = busy, streamed = bare): ObserverBenchResult => ({
    jobs: 20_000,
    clients: 50,
    viewers: 10,
    rounds: quiet.flatMap((q, i) => [round(0, q), round(50, busy[i]), round(50, streamed[i], 'stream'), round(50, bare[i], 'floor')]),
    warmup: [round(0, 1), round(50, 1)],
    idle: { quiet: round(0, 0), busy: round(50, 0), seconds: 5 },
    responses: { '/api/live/overview': { p50: 20, p95: 80, count: 1_000 } },
    failures: 0,
    lateTicks: 0,
    clientSeconds: 20,
    clientTicks: 990,
    signInMs: 12_000,
    streamEvents: { events: 4_000, seconds: 40, streams: 50 },
    many: { streams: 500, seconds: 10, cpuIdle: 0.01, cpuOpen: 0.05, rssIdle: 200 * 2 ** 20, rssOpen: 210 * 2 ** 20, events: 9_000 },
    cores: 2,
    load: { start: 0.5, end: 0.5 },
    totalS: 150,
  });

  it('states the loss of the medians against the 5% target', () => {
    const met = observerSection(result([10_000, 9_000, 11_000], [9_800, 9_700, 9_900]));
    expect(met.split('\n', 1)[0]).toBe('## Observer effect: the runtime with dashboard clients polling');
    expect(met).toContain(
      '**Median: 9,800 jobs/s with 50 clients polling the dashboard, 10,000 without; ratio 0.980, 2.0% loss** (target under 5%: met)',
    );
    const missed = observerSection(result([10_000, 9_000, 11_000], [8_000, 8_500, 9_000], [9_000, 9_300, 9_100]));
    expect(missed).toContain('15.0% loss** (target under 5%: **not met**)');
    // The bare server's rounds are their own median, beside the dashboard's.
    expect(missed).toContain('With the same clients polling the bare server: 9,100 jobs/s, 9.0% loss');
    expect(missed).toContain('| 4 | bare server | 50 | 9,000 |');
  });

  it("states the streaming tabs' loss against the bare server's, and the cost of 500 open streams", () => {
    const met = observerSection(result([10_000, 9_000, 11_000], [8_000, 8_500, 9_000], [9_000, 9_300, 9_100], [9_500, 9_400, 9_600]));
    expect(met).toContain('**50 tabs streaming: 9,500 jobs/s, 5.0% loss** (target: no more than the bare server’s 9.0%: met)');
    expect(met).toContain('| 3 | its live stream | 50 | 9,500 |');
    expect(met).toContain('each stream received 2.00 pushed values a second');
    expect(met).toContain('the dashboard 0.010 → 0.050 cores, resident memory 200 → 210 MiB');
    expect(met).toContain('(20.5 KiB a stream)');
    const missed = observerSection(result([10_000, 9_000, 11_000], [8_000, 8_500, 9_000], [9_000, 9_300, 9_100], [8_000, 8_100, 8_200]));
    expect(missed).toContain('19.0% loss** (target: no more than the bare server’s 9.0%: **not met**)');
  });

  it('shows the CPU the hypervisor took in each round, and the medians by kind', () => {
    const text = observerSection(result([10_000, 9_000, 11_000], [8_000, 8_500, 9_000], [9_000, 9_300, 9_100]));
    expect(text).toContain('| 2 | the dashboard | 50 | 8,000 | 1.00 | 0.50 | 0.30 | 0.10 | 0.25 |');
    expect(text).toContain('| 1 | – | 0 | 10,000 | 1.00 | 0.50 | 0.00 | 0.00 | 0.01 |');
    expect(text).toContain('taken by the hypervisor (steal time) 0.01 / 0.25 / 0.01');
    expect(text).toContain('(most in one round: 0.25)');
  });

  it('says plainly that the cores are shared', () => {
    expect(observerSection(result([1], [1]))).toContain('it has 2 cores, and the worker, redis-server, the server polled and the');
  });
});
