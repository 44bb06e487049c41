import { describe, expect, it } from 'vitest';
import { DEFAULT_HISTORY_RANGE, historyRangeHref, parseHistoryRange, RANGE_SPEC } from '@/dashboard/client/history-range';

describe('parseHistoryRange', () => {
  it('reads each range', () => {
    for (const r of ['1h', '24h', '7d', '30d'] as const) expect(parseHistoryRange(r)).toEqual({ range: r });
  });

  it('is the default when absent or empty, and takes the first of repeated values', () => {
    expect(parseHistoryRange(undefined)).toEqual({ range: DEFAULT_HISTORY_RANGE });
    expect(parseHistoryRange(null)).toEqual({ range: DEFAULT_HISTORY_RANGE });
    expect(parseHistoryRange('')).toEqual({ range: DEFAULT_HISTORY_RANGE });
    expect(parseHistoryRange(['7d', '1h'])).toEqual({ range: '7d' });
  });

  it('falls back to the default for a bad value and names it with the rule', () => {
    for (const bad of ['7D', '2d', '1 h', 'constructor', '__proto__', 'x'.repeat(5_000)]) {
      const r = parseHistoryRange(bad);
      expect(r.range).toBe(DEFAULT_HISTORY_RANGE);
      expect(r.ignored).toMatch(/one of 1h, 24h, 7d, 30d/);
      expect(r.ignored!.length).toBeLessThan(100);
    }
  });
});

describe('historyRangeHref', () => {
  it('keeps the page’s other parameters, sets the range and lands on the charts', () => {
    expect(historyRangeHref('/queues/q', { state: 'failed', page: '2', range: '24h' }, '7d')).toBe(
      '/queues/q?state=failed&page=2&range=7d#history',
    );
  });

  it('leaves the default out', () => {
    expect(historyRangeHref('/', { range: '7d' }, DEFAULT_HISTORY_RANGE)).toBe('/#history');
  });

  it('keeps repeated parameters and encodes values', () => {
    expect(historyRangeHref('/', { tag: ['a', 'b&c'] }, '30d')).toBe('/?tag=a&tag=b%26c&range=30d#history');
  });
});

describe('RANGE_SPEC', () => {
  it('covers each range exactly', () => {
    const HOUR = 3_600_000;
    expect(RANGE_SPEC['1h'].points * RANGE_SPEC['1h'].stepMs).toBe(HOUR);
    expect(RANGE_SPEC['24h'].points * RANGE_SPEC['24h'].stepMs).toBe(24 * HOUR);
    expect(RANGE_SPEC['7d'].points * RANGE_SPEC['7d'].stepMs).toBe(7 * 24 * HOUR);
    expect(RANGE_SPEC['30d'].points * RANGE_SPEC['30d'].stepMs).toBe(30 * 24 * HOUR);
  });
});
