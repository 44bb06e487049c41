import { describe, expect, it } from 'vitest';
import { pageWindow, pageCountOf } from '@/dashboard/client/pagination';
import {
  DEFAULT_STATE,
  hasStateParam,
  isFiltered,
  landingState,
  MAX_PAGE,
  parseQueueFilters,
  queueHref,
  serializeQueueFilters,
} from '@/dashboard/client/queue-filters';

describe('the tab a queue page opens on', () => {
  it('is the first of failed, waiting and active that holds jobs, else active', () => {
    expect(landingState({ failed: 2, waiting: 5, active: 1 })).toBe('failed');
    expect(landingState({ failed: 0, waiting: 5, active: 1 })).toBe('waiting');
    expect(landingState({ failed: 0, waiting: 0, active: 1, completed: 9 })).toBe('active');
    expect(landingState({ completed: 9 })).toBe('active');
  });

  it('is chosen only when the URL names no valid tab', () => {
    expect(hasStateParam(new URLSearchParams('state=completed'))).toBe(true);
    expect(hasStateParam(new URLSearchParams(''))).toBe(false);
    expect(hasStateParam({ state: 'paused' })).toBe(false);
  });
});

describe('queue filters ↔ URL', () => {
  it('round-trips "failed webhook-dispatch jobs of org 42, page 3" as a shareable link', () => {
    const href = queueHref('webhook-dispatch', { state: 'failed', tenant: '42', page: 3 });
    expect(href).toBe('/queues/webhook-dispatch?state=failed&tenant=42&page=3');
    const parsed = parseQueueFilters(new URL(href, 'http://x').searchParams);
    expect(parsed).toEqual({ state: 'failed', page: 3, pageSize: 25, tenant: '42' });
    expect(serializeQueueFilters(parsed)).toBe('state=failed&tenant=42&page=3');
  });

  it("keeps the history card's range in tab and page links, but not in the job list's identity", () => {
    const parsed = parseQueueFilters({ state: 'failed', range: '7d' });
    expect(parsed.range).toBe('7d');
    expect(queueHref('webhook-dispatch', { ...parsed, state: 'completed', page: 2 })).toBe(
      '/queues/webhook-dispatch?state=completed&page=2&range=7d',
    );
    expect(serializeQueueFilters(parsed)).toBe('state=failed');
    // The default range and a value that is no range are left out.
    expect(parseQueueFilters({ range: '1h' }).range).toBeUndefined();
    expect(parseQueueFilters({ range: '90d' }).range).toBeUndefined();
    expect(queueHref('slack-sync', { range: '1h' })).toBe('/queues/slack-sync');
  });

  it('omits defaults and orders keys, so equal filters give equal URLs', () => {
    expect(serializeQueueFilters({ page: 1, pageSize: 25 })).toBe('');
    // A given tab is always written: a URL without one opens on the tab that holds jobs.
    expect(serializeQueueFilters({ state: DEFAULT_STATE, page: 1, pageSize: 25 })).toBe('state=active');
    expect(serializeQueueFilters({ page: 2, name: 'x', state: 'completed', pageSize: 100, tenant: 'a' })).toBe(
      'state=completed&name=x&tenant=a&size=100&page=2',
    );
    expect(queueHref('memory-cleanup')).toBe('/queues/memory-cleanup');
  });

  it('falls back to defaults for every bad value instead of throwing', () => {
    const f = parseQueueFilters({ state: 'paused', page: '-4', size: '7', name: '   ', tenant: 'org 42!' });
    expect(f).toEqual({ state: DEFAULT_STATE, page: 1, pageSize: 25 });
    expect(parseQueueFilters({ page: '2.5' }).page).toBe(1);
    expect(parseQueueFilters({ page: '999999999' }).page).toBe(MAX_PAGE);
    expect(parseQueueFilters({ state: ['delayed', 'failed'] }).state).toBe('delayed');
  });

  it('trims values and tells filtered pages from plain ones', () => {
    const f = parseQueueFilters(new URLSearchParams('name=%20webhook-dispatch%20&tenant=%2042%20'));
    expect(f.name).toBe('webhook-dispatch');
    expect(f.tenant).toBe('42');
    expect(isFiltered(f)).toBe(true);
    expect(isFiltered(parseQueueFilters({}))).toBe(false);
  });

  it('encodes special characters in names', () => {
    const href = queueHref('slack-sync', { name: 'a&b=c' });
    expect(parseQueueFilters(new URL(href, 'http://x').searchParams).name).toBe('a&b=c');
  });
});

describe('pageWindow', () => {
  it('shows first, last and two either side of the current page, with gaps', () => {
    expect(pageWindow(1000, 40_000)).toEqual([1, 'gap', 998, 999, 1000, 1001, 1002, 'gap', 40_000]);
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(5, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pageWindow(1, 1)).toEqual([1]);
    // A page past the end is clamped.
    expect(pageWindow(50, 10)).toEqual([1, 'gap', 8, 9, 10]);
  });

  it('counts pages', () => {
    expect(pageCountOf(0, 25)).toBe(1);
    expect(pageCountOf(1_000_000, 25)).toBe(40_000);
    expect(pageCountOf(26, 25)).toBe(2);
  });
});
