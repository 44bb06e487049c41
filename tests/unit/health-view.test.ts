import { describe, expect, it } from 'vitest';
import { bearerChallenge, checkBearer } from '@/dashboard/health/health-metrics-auth';
import {
  formatDurationMs,
  healthHttpStatus,
  overallSentence,
  queueHealthRows,
  toCheckView,
  withRedisState,
} from '@/dashboard/client/health-view';
import type { CheckResult, HealthReport } from '@/lib/health/health-status';

const at = '2025-01-31T04:05:00.000Z';
const check = (c: Pick<CheckResult, 'name' | 'status' | 'details'> & { latencyMs?: number }): CheckResult => ({
  latencyMs: 1.2,
  checkedAt: at,
  ...c,
});

describe('healthHttpStatus', () => {
  it('answers 503 only when unhealthy: a degraded service still serves', () => {
    expect(healthHttpStatus('healthy')).toBe(200);
    expect(healthHttpStatus('degraded')).toBe(200);
    expect(healthHttpStatus('unhealthy')).toBe(503);
  });
});

describe('formatDurationMs', () => {
  it('picks the unit an operator reads fastest', () => {
    expect(formatDurationMs(0.44)).toBe('0.4 ms');
    expect(formatDurationMs(850)).toBe('850 ms');
    expect(formatDurationMs(12_300)).toBe('12 s');
    expect(formatDurationMs(185_000)).toBe('3 min 5 s');
    expect(formatDurationMs(300_000)).toBe('5 min');
    expect(formatDurationMs(7_380_000)).toBe('2 h 3 min');
    expect(formatDurationMs(93_600_000)).toBe('1 d 2 h');
    expect(formatDurationMs(null)).toBe('—');
  });
});

describe('toCheckView', () => {
  it('redis: the PING and the threshold', () => {
    const v = toCheckView(check({ name: 'redis', status: 'healthy', details: { pingMs: 0.4, degradedAtMs: 100 } }));
    expect(v.title).toBe('Redis');
    expect(v.summary).toBe('PING answered in 0.4 ms (degraded from 100 ms).');
  });

  it('workers: names the queues below the minimum', () => {
    const v = toCheckView(
      check({
        name: 'workers',
        status: 'degraded',
        details: { minWorkers: 1, workers: { 'webhook-dispatch': 2, 'quota-check': 0 }, total: 2, belowMinimum: ['quota-check'] },
      }),
    );
    expect(v.summary).toBe('2 queue workers connected; 1 queue below the minimum: quota-check.');
    expect(v.facts).toContainEqual({ label: 'Minimum per queue', value: '1' });
  });

  it('workers: points at the table when many queues are short', () => {
    const workers = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((q) => [q, 0]));
    const v = toCheckView(
      check({ name: 'workers', status: 'unhealthy', details: { minWorkers: 1, workers, total: 0, belowMinimum: Object.keys(workers) } }),
    );
    expect(v.summary).toBe('0 queue workers connected; 5 queues of 5 below the minimum (marked in the table).');
  });

  it('workers: explains a Redis that refuses CLIENT LIST', () => {
    const v = toCheckView(
      check({ name: 'workers', status: 'degraded', details: { reason: 'client-list-unavailable', minWorkers: 1, queues: 3 } }),
    );
    expect(v.summary).toContain('CLIENT LIST');
  });

  it('queues: the oldest wait against the thresholds', () => {
    const v = toCheckView(
      check({
        name: 'queues',
        status: 'degraded',
        details: {
          degradedAfterMs: 300_000,
          unhealthyAfterMs: 1_800_000,
          oldestWaitingMs: 420_000,
          queues: { a: { waiting: 3, oldestWaitingMs: 420_000, paused: false }, b: { waiting: 1, oldestWaitingMs: null, paused: true } },
        },
      }),
    );
    expect(v.summary).toBe('The oldest ready job has waited 7 min; 4 jobs waiting in all.');
    expect(v.facts).toContainEqual({ label: 'Unhealthy after', value: '30 min' });
  });

  it('dead letters: pending against the threshold', () => {
    expect(toCheckView(check({ name: 'deadLetters', status: 'healthy', details: { pending: 0, threshold: 100 } })).summary).toBe(
      'No dead letter is waiting for an operator.',
    );
    expect(toCheckView(check({ name: 'deadLetters', status: 'unhealthy', details: { pending: 1234, threshold: 100 } })).summary).toBe(
      '1,234 dead letters waiting for an operator (unhealthy at 100).',
    );
  });

  it('a failed or timed-out check says so, never with an error text (there is none)', () => {
    const v = toCheckView(check({ name: 'redis', status: 'unhealthy', details: { reason: 'timeout', timeLimitMs: 2000 } }));
    expect(v.summary).toBe('The check did not answer within the time limit.');
    expect(v.facts).toEqual([{ label: 'Time limit', value: '2 s' }]);
  });

  it('survives details of an unexpected shape', () => {
    const v = toCheckView(check({ name: 'queues', status: 'healthy', details: { queues: 'nope', oldestWaitingMs: 'x' } }));
    expect(v.summary).toContain('Nothing is waiting');
  });
});

describe('queueHealthRows', () => {
  it('joins workers and waiting jobs per queue, sorted', () => {
    const rows = queueHealthRows({
      checks: [
        check({ name: 'workers', status: 'degraded', details: { workers: { b: 0, a: 2 }, belowMinimum: ['b'], minWorkers: 1, total: 2 } }),
        check({
          name: 'queues',
          status: 'healthy',
          details: {
            queues: { a: { waiting: 5, oldestWaitingMs: 1200, paused: false }, c: { waiting: 0, oldestWaitingMs: null, paused: true } },
          },
        }),
      ],
    });
    expect(rows).toEqual([
      { queue: 'a', workers: 2, belowMinimum: false, waiting: 5, oldestWaitingMs: 1200, paused: false },
      { queue: 'b', workers: 0, belowMinimum: true, waiting: null, oldestWaitingMs: null, paused: false },
      { queue: 'c', workers: null, belowMinimum: false, waiting: 0, oldestWaitingMs: null, paused: true },
    ]);
  });
});

describe('overallSentence', () => {
  it('names the checks that are not healthy', () => {
    const checks = [check({ name: 'redis', status: 'healthy', details: {} }), check({ name: 'workers', status: 'unhealthy', details: {} })];
    expect(overallSentence({ status: 'unhealthy', checks })).toBe('Unhealthy: queue workers unhealthy.');
    expect(overallSentence({ status: 'healthy', checks: [checks[0]] })).toBe('Every check is healthy.');
  });
});

describe('checkBearer', () => {
  const token = 'metrics-token-0123456789';

  it('is open when no token is configured', () => {
    expect(checkBearer(null, undefined)).toBe('ok');
  });

  it('tells a missing header from a wrong token', () => {
    expect(checkBearer(null, token)).toBe('missing');
    expect(checkBearer('Basic abc', token)).toBe('missing');
    expect(checkBearer('Bearer wrong', token)).toBe('invalid');
    expect(checkBearer(`Bearer ${token}x`, token)).toBe('invalid');
    expect(checkBearer(`bearer ${token}`, token)).toBe('ok');
  });

  it('challenges as RFC 6750 says', () => {
    expect(bearerChallenge('missing')).toBe('Bearer realm="bullpen-dashboard"');
    expect(bearerChallenge('invalid')).toContain('error="invalid_token"');
  });
});

describe('health view while Redis is unreachable', () => {
  const since = Date.parse('2026-11-27T09:41:18Z');
  const healthy: HealthReport = {
    status: 'degraded',
    checkedAt: '2026-11-27T09:41:00Z',
    checks: [
      { name: 'redis', status: 'healthy', latencyMs: 5.3, details: { pingMs: 5.3, degradedAtMs: 100 }, checkedAt: '2026-11-27T09:41:00Z' },
      { name: 'workers', status: 'degraded', latencyMs: 3, details: { total: 1 }, checkedAt: '2026-11-27T09:41:00Z' },
    ],
  };

  it('a report from before the outage says what the tab knows now: unhealthy, Redis unreachable since then', () => {
    const now = withRedisState(healthy, { reachable: false, since });
    expect(now.status).toBe('unhealthy');
    expect(toCheckView(now.checks[0])).toMatchObject({ status: 'unhealthy', summary: 'Redis unreachable since 09:41:18 UTC.' });
    expect(toCheckView(now.checks[1]).summary).toBe('Unknown: redis unreachable since 09:41:18 UTC.');
    expect(overallSentence(now)).toMatch(/^Unhealthy: redis unhealthy/);
  });

  it('leaves the report alone while Redis answers, or before the tab knows', () => {
    expect(withRedisState(healthy, { reachable: true, since })).toBe(healthy);
    expect(withRedisState(healthy, undefined)).toBe(healthy);
  });
});
