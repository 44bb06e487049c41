import { describe, expect, it } from 'vitest';
import {
  DLQ_DEFAULT_PAGE_SIZE,
  deadLettersHref,
  describeFilters,
  formatInstant,
  hasFilter,
  maxPage,
  parseDeadLetterFilters,
  parseInstant,
  serializeDeadLetterFilters,
  toStoreFilter,
  withoutPaging,
} from '@/dashboard/client/dead-letters-filters';
import { deadLetterFilterSchema } from '@/lib/dlq/filter';

const T = Date.UTC(2025, 0, 31, 4, 5); // 2025-01-31T04:05Z

describe('parseInstant / formatInstant', () => {
  it('reads zone-less date-times as UTC, the zone the page shows', () => {
    expect(parseInstant('2025-01-31T04:05')).toBe(T);
    expect(parseInstant('2025-01-31 04:05')).toBe(T);
    expect(parseInstant('2025-01-31T04:05Z')).toBe(T);
    expect(parseInstant('2025-01-31')).toBe(Date.UTC(2025, 0, 31));
    expect(parseInstant('2025-01-31T04:05:06.7')).toBe(T + 6_700);
  });

  it('applies an explicit offset', () => {
    expect(parseInstant('2025-01-31T06:05+02:00')).toBe(T);
    expect(parseInstant('2025-01-31T01:05-0300')).toBe(T);
  });

  it('accepts epoch milliseconds', () => {
    expect(parseInstant(String(T))).toBe(T);
  });

  it('refuses what is not a real date', () => {
    for (const bad of ['yesterday', '2025-02-30', '2025-13-01', '2025-01-31T24:00', '2025-01-31T10:61', '31/01/2025', '']) {
      expect(parseInstant(bad), bad).toBeUndefined();
    }
  });

  it('writes the shortest form that reads back the same', () => {
    expect(formatInstant(T)).toBe('2025-01-31T04:05');
    expect(formatInstant(T + 6_000)).toBe('2025-01-31T04:05:06');
    expect(formatInstant(T + 6_789)).toBe('2025-01-31T04:05:06.789');
    for (const t of [T, T + 6_000, T + 6_789, 0, Date.UTC(2099, 11, 31, 23, 59, 59, 999)]) {
      expect(parseInstant(formatInstant(t))).toBe(t);
    }
  });
});

describe('parseDeadLetterFilters', () => {
  it('gives page 1 of the default size with no filter for an empty URL', () => {
    expect(parseDeadLetterFilters({})).toEqual({ filters: { page: 1, pageSize: DLQ_DEFAULT_PAGE_SIZE }, ignored: [] });
  });

  it('reads every dimension from searchParams or URLSearchParams alike', () => {
    const qs = 'type=webhook-dispatch&tenant=org-42&class=network&status=pending&from=2025-01-31T04:05&to=2025-02-01&size=100&page=3';
    const expected = {
      type: 'webhook-dispatch',
      tenant: 'org-42',
      errorClass: 'network',
      status: 'pending',
      from: T,
      to: Date.UTC(2025, 1, 1),
      page: 3,
      pageSize: 100,
    };
    expect(parseDeadLetterFilters(new URLSearchParams(qs))).toEqual({ filters: expected, ignored: [] });
    const record = Object.fromEntries(new URLSearchParams(qs));
    expect(parseDeadLetterFilters(record).filters).toEqual(expected);
  });

  it('keeps the first of a repeated parameter', () => {
    expect(parseDeadLetterFilters({ status: ['replayed', 'pending'] }).filters.status).toBe('replayed');
  });

  it('drops unusable values and says which and why, instead of failing the page', () => {
    const { filters, ignored } = parseDeadLetterFilters({
      type: 'Bad Type!',
      tenant: 'org 42',
      class: 'cosmic-rays',
      status: 'lost',
      since: '2y',
      from: 'yesterday',
      size: '7',
      page: '-1',
    });
    expect(filters).toEqual({ page: 1, pageSize: DLQ_DEFAULT_PAGE_SIZE });
    expect(ignored.map((i) => i.param).sort()).toEqual(['class', 'from', 'page', 'since', 'size', 'status', 'tenant', 'type']);
    expect(ignored.find((i) => i.param === 'class')?.reason).toContain('network');
  });

  it('lets since win over from, and drops a to before from', () => {
    const a = parseDeadLetterFilters({ since: '1h', from: '2025-01-31' });
    expect(a.filters).toMatchObject({ since: '1h' });
    expect(a.filters.from).toBeUndefined();
    expect(a.ignored).toEqual([{ param: 'from', reason: 'replaced by since=1h' }]);
    const b = parseDeadLetterFilters({ from: '2025-02-01', to: '2025-01-31' });
    expect(b.filters).toMatchObject({ from: Date.UTC(2025, 1, 1) });
    expect(b.filters.to).toBeUndefined();
    expect(b.ignored[0].param).toBe('to');
  });

  it('clamps a page past the deepest offset the store serves', () => {
    const { filters } = parseDeadLetterFilters({ page: '999999999', size: '200' });
    expect(filters.page).toBe(maxPage(200));
    expect((filters.page - 1) * filters.pageSize).toBeLessThanOrEqual(1_000_000);
  });
});

describe('serializeDeadLetterFilters', () => {
  it('omits defaults and orders keys, so equal filters give equal URLs', () => {
    expect(serializeDeadLetterFilters({ page: 1, pageSize: DLQ_DEFAULT_PAGE_SIZE })).toBe('');
    expect(serializeDeadLetterFilters({ status: 'pending', type: 'webhook-dispatch', page: 2 })).toBe(
      'type=webhook-dispatch&status=pending&page=2',
    );
  });

  it('round-trips through parse', () => {
    const cases = [
      { type: 'webhook-dispatch', tenant: 'org_1.a', errorClass: 'rate_limit', status: 'replayed', page: 4, pageSize: 25 },
      { since: '24h', to: T + 6_789, page: 1, pageSize: 200 },
      { from: T, to: T + 60_000, page: 2, pageSize: 50 },
    ] as const;
    for (const f of cases) {
      expect(parseDeadLetterFilters(new URLSearchParams(serializeDeadLetterFilters(f)))).toEqual({ filters: f, ignored: [] });
    }
  });

  it('builds shareable links', () => {
    expect(deadLettersHref()).toBe('/dead-letters');
    expect(deadLettersHref({ tenant: '42', status: 'pending', page: 3 })).toBe('/dead-letters?tenant=42&status=pending&page=3');
  });
});

describe('toStoreFilter', () => {
  const now = T + 10 * 60 * 60_000;

  it('resolves since against now and passes the rest through', () => {
    const f = toStoreFilter({ type: 'webhook-dispatch', since: '1h', errorClass: 'server' }, now);
    expect(f).toEqual({ type: 'webhook-dispatch', errorClass: 'server', from: now - 3_600_000 });
  });

  it('always produces a filter the store accepts', () => {
    const parsed = parseDeadLetterFilters({ tenant: 'org-1', status: 'discarded', from: '2025-01-31', to: '2025-02-01' });
    const f = toStoreFilter(withoutPaging(parsed.filters), now);
    expect(deadLetterFilterSchema.safeParse(f).success).toBe(true);
    // A to that falls before the window that since opens is dropped rather than refused.
    const g = toStoreFilter({ since: '15m', to: T }, now);
    expect(g.to).toBeUndefined();
    expect(deadLetterFilterSchema.safeParse(g).success).toBe(true);
  });
});

describe('hasFilter / describeFilters', () => {
  it('knows an empty filter', () => {
    expect(hasFilter({})).toBe(false);
    expect(describeFilters({})).toBe('all dead letters');
  });

  it('puts a filter in words for the confirm dialog', () => {
    expect(hasFilter({ since: '7d' })).toBe(true);
    expect(describeFilters({ type: 'webhook-dispatch', status: 'pending', since: '7d' })).toBe(
      'type webhook-dispatch, status pending, failed in the last 7d',
    );
    expect(describeFilters({ from: T })).toBe('failed from 2025-01-31T04:05 UTC');
  });
});
