import { describe, expect, it } from 'vitest';
import {
  deadLetterStatus,
  queuesBelowMinimum,
  redisLatencyStatus,
  waitingAgeStatus,
  workersStatus,
  worstStatus,
} from '@/lib/health/health-rules';
import { healthReportSchema, publicHealthSchema, toPublicHealth, type HealthReport } from '@/lib/health/health-status';

const MIN = 60_000;

describe('worst-of aggregation', () => {
  it('takes the worst status, whatever the order', () => {
    expect(worstStatus(['healthy', 'degraded', 'healthy'])).toBe('degraded');
    expect(worstStatus(['unhealthy', 'degraded', 'healthy'])).toBe('unhealthy');
    expect(worstStatus(['healthy', 'healthy', 'unhealthy'])).toBe('unhealthy');
    expect(worstStatus(['healthy'])).toBe('healthy');
  });

  it('treats no checks as healthy', () => {
    expect(worstStatus([])).toBe('healthy');
  });
});

describe('redis latency rule (docs/requirements.md#background-workers: healthy under 100 ms)', () => {
  it('is healthy below the bound and degraded at or above it', () => {
    expect(redisLatencyStatus(0.4, 100)).toBe('healthy');
    expect(redisLatencyStatus(99.9, 100)).toBe('healthy');
    expect(redisLatencyStatus(100, 100)).toBe('degraded');
    expect(redisLatencyStatus(1_500, 100)).toBe('degraded');
  });
});

describe('workers rule', () => {
  it('is healthy when every queue has at least minWorkers', () => {
    expect(workersStatus({ a: 1, b: 3 }, 1)).toBe('healthy');
    expect(workersStatus({ a: 2, b: 2 }, 2)).toBe('healthy');
  });

  it('is degraded when some queues are below, even if all have some', () => {
    expect(workersStatus({ a: 1, b: 0 }, 1)).toBe('degraded');
    expect(workersStatus({ a: 1, b: 1 }, 2)).toBe('degraded');
  });

  it('is unhealthy when no queue has any worker', () => {
    expect(workersStatus({ a: 0, b: 0 }, 1)).toBe('unhealthy');
  });

  it('never fails with minWorkers 0 or with no queues to serve', () => {
    expect(workersStatus({ a: 0 }, 0)).toBe('healthy');
    expect(workersStatus({}, 1)).toBe('healthy');
  });

  it('names the queues below the minimum, sorted', () => {
    expect(queuesBelowMinimum({ z: 0, a: 0, m: 4 }, 1)).toEqual(['a', 'z']);
  });
});

describe('oldest waiting job rule (5 min degraded, 30 min unhealthy by default)', () => {
  const t = { degradedMs: 5 * MIN, unhealthyMs: 30 * MIN };

  it('is healthy when nothing waits or the wait is short', () => {
    expect(waitingAgeStatus(null, t)).toBe('healthy');
    expect(waitingAgeStatus(0, t)).toBe('healthy');
    expect(waitingAgeStatus(5 * MIN, t)).toBe('healthy');
  });

  it('is degraded past the first bound and unhealthy past the second', () => {
    expect(waitingAgeStatus(5 * MIN + 1, t)).toBe('degraded');
    expect(waitingAgeStatus(30 * MIN, t)).toBe('degraded');
    expect(waitingAgeStatus(30 * MIN + 1, t)).toBe('unhealthy');
  });
});

describe('dead letters rule (0 healthy, < threshold degraded, else unhealthy)', () => {
  it('follows the requirements', () => {
    expect(deadLetterStatus(0, 100)).toBe('healthy');
    expect(deadLetterStatus(1, 100)).toBe('degraded');
    expect(deadLetterStatus(99, 100)).toBe('degraded');
    expect(deadLetterStatus(100, 100)).toBe('unhealthy');
    expect(deadLetterStatus(5_000, 100)).toBe('unhealthy');
  });
});

describe('public view', () => {
  it('keeps statuses only: no details, no latencies', () => {
    const report: HealthReport = {
      status: 'degraded',
      checkedAt: '2025-01-01T00:00:00.000Z',
      checks: [
        { name: 'redis', status: 'healthy', latencyMs: 0.4, details: { pingMs: 0.4 }, checkedAt: '2025-01-01T00:00:00.000Z' },
        { name: 'deadLetters', status: 'degraded', latencyMs: 1, details: { pending: 3 }, checkedAt: '2025-01-01T00:00:00.000Z' },
      ],
    };
    expect(healthReportSchema.parse(report)).toEqual(report);
    const view = toPublicHealth(report);
    expect(view).toEqual({
      status: 'degraded',
      checks: { redis: 'healthy', deadLetters: 'degraded' },
      checkedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(publicHealthSchema.strict().parse(view)).toEqual(view);
    expect(JSON.stringify(view)).not.toMatch(/pending|pingMs|latency/);
  });
});
