import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  auditHref,
  auditWindow,
  describeAuditFilters,
  hasAuditFilter,
  matchesAudit,
  parseAuditFilters,
  serializeAuditFilters,
} from '@/dashboard/client/audit-filters';

const entry = (actor: string, action: string, kind: string, id: string) => ({ actor, action, target: { kind, id } });

describe('audit filters in the URL', () => {
  it('reads actor, action, target and a time window', () => {
    const { filters, ignored } = parseAuditFilters(
      new URLSearchParams('actor=alice&action=DLQ.Replay&target=dead-letter:&from=2026-11-01T04:05&to=2026-11-02'),
    );
    expect(ignored).toEqual([]);
    expect(filters).toEqual({
      actor: 'alice',
      action: 'dlq.replay',
      target: 'dead-letter:',
      from: Date.UTC(2026, 10, 1, 4, 5),
      to: Date.UTC(2026, 10, 2),
    });
  });

  it('drops what it cannot use and says why, keeping the rest', () => {
    const { filters, ignored } = parseAuditFilters({
      actor: 'x'.repeat(201),
      action: 'drop table;',
      since: '2y',
      from: '2026-02-31',
      before: '1-2-3',
      target: 'queue:mail',
    });
    expect(filters).toEqual({ target: 'queue:mail' });
    expect(ignored.map((i) => i.param).sort()).toEqual(['action', 'actor', 'before', 'from', 'since']);
  });

  it('lets since win over from, and refuses a `to` before `from`', () => {
    expect(parseAuditFilters({ since: '1h', from: '2026-01-01' })).toMatchObject({
      filters: { since: '1h' },
      ignored: [{ param: 'from', reason: 'replaced by since=1h' }],
    });
    expect(parseAuditFilters({ from: '2026-01-02', to: '2026-01-01' })).toMatchObject({
      filters: { from: Date.UTC(2026, 0, 2) },
      ignored: [{ param: 'to', reason: 'before from' }],
    });
  });

  it('serializes to a URL that parses back to the same filters', () => {
    const arb = fc.record(
      {
        actor: fc.stringMatching(/^[a-z:]{1,20}$/),
        action: fc.stringMatching(/^[a-z]{1,8}(\.[a-z-]{1,10})?$/),
        target: fc.stringMatching(/^[a-z:/0-9-]{1,20}$/),
        from: fc.integer({ min: 0, max: 4_000_000_000_000 }),
        before: fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `${a}-${b}`),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(arb, (f) => {
        expect(parseAuditFilters(new URLSearchParams(serializeAuditFilters(f))).filters).toEqual(f);
      }),
    );
    expect(auditHref({})).toBe('/audit');
    expect(auditHref({ action: 'auth.sign-in-failed' })).toBe('/audit?action=auth.sign-in-failed');
  });

  it('matches an action exactly or by its group, never by a bare prefix', () => {
    const e = entry('alice', 'dlq.replay-many', 'dlq', 'type=x');
    expect(matchesAudit(e, { action: 'dlq.replay-many' })).toBe(true);
    expect(matchesAudit(e, { action: 'dlq' })).toBe(true);
    expect(matchesAudit(e, { action: 'dlq.replay' })).toBe(false);
    expect(matchesAudit(e, { action: 'dl' })).toBe(false);
  });

  it('matches actor and target as case-insensitive substrings, every filter at once', () => {
    const e = entry('cli:Alice', 'dlq.discard', 'dead-letter', 'webhook-dispatch:42');
    expect(matchesAudit(e, { actor: 'alice' })).toBe(true);
    expect(matchesAudit(e, { actor: 'bob' })).toBe(false);
    expect(matchesAudit(e, { target: 'DEAD-LETTER:' })).toBe(true);
    expect(matchesAudit(e, { target: 'dispatch:42' })).toBe(true);
    expect(matchesAudit(e, { target: 'queue:' })).toBe(false);
    expect(matchesAudit(e, { actor: 'alice', action: 'dlq', target: 'webhook' })).toBe(true);
    expect(matchesAudit(e, { actor: 'alice', action: 'auth', target: 'webhook' })).toBe(false);
  });

  it('resolves since against now and describes the filters in words', () => {
    expect(auditWindow({ since: '1h', to: 5 }, 10_000_000)).toEqual({ from: 10_000_000 - 3_600_000, to: 5 });
    expect(hasAuditFilter({ before: '1-0' })).toBe(false);
    expect(hasAuditFilter({ target: 'x' })).toBe(true);
    expect(describeAuditFilters({ actor: 'alice', action: 'dlq', since: '24h' })).toBe('by “alice”, actions dlq.*, in the last 24h');
    expect(describeAuditFilters({})).toBe('every entry');
  });
});
