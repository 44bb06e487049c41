import { describe, expect, it } from 'vitest';
import { AuditLog } from '@/lib/audit/audit-log';
import { SignInFailureLog } from '@/lib/audit/sign-in-failures';
import { useTestRedis } from '../helpers/use-test-redis';

/**
 * Issue 21 item 4: 2,000 refused sign-ins wrote 2,000 audit entries, and the audit was
 * capped by count, so one anonymous client could evict the operators' history. Refused
 * sign-ins are aggregated per client per minute in a stream of their own; the audit is
 * kept by time (docs/security.md, "What is logged").
 */
const server = useTestRedis();
const MIN = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('refused sign-ins, aggregated per client per minute', () => {
  it('2,000 refusals from one client in one minute are one row counting 2,000; the operators’ audit gets none', async () => {
    const b = await server.readyBullpen();
    let now = 1_700_000_000_000 - (1_700_000_000_000 % MIN) + 5_000;
    const failures = new SignInFailureLog(b.redis, b.keys, { now: () => now });
    await b.audit.append({ actor: 'olivia', action: 'dlq.replay', target: { kind: 'dead-letter', id: 'd1' } });
    for (let i = 0; i < 2_000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, k) =>
          failures.record({ client: '203.0.113.9', username: `Guess${i + k}`, reason: (i + k) % 4 ? 'UNAUTHENTICATED' : 'RATE_LIMITED' }),
        ),
      );
    }
    await failures.record({ client: '198.51.100.1', username: 'admin', reason: 'UNAUTHENTICATED' });
    now += MIN;
    await failures.record({ client: '203.0.113.9', username: 'root', reason: 'RATE_LIMITED' });

    const { rows } = await failures.page({ limit: 10 });
    expect(rows.map((r) => [r.client, r.minute, r.count])).toEqual([
      ['203.0.113.9', now - 5_000, 1],
      ['198.51.100.1', now - 5_000 - MIN, 1],
      ['203.0.113.9', now - 5_000 - MIN, 2_000],
    ]);
    expect(rows[2].reasons).toEqual({ UNAUTHENTICATED: 1_500, RATE_LIMITED: 500 });
    expect(rows[2].lastUser).toMatch(/^guess\d+$/);
    expect(await b.redis.xlen(b.keys.tagged('audit', 'sign-in-failures'))).toBe(3);
    const audit = await b.audit.page({ limit: 10 });
    expect(audit.entries.map((e) => e.action)).toEqual(['dlq.replay']);
  });

  it('pages newest first, and a client name cannot forge another field', async () => {
    const b = await server.readyBullpen();
    const failures = new SignInFailureLog(b.redis, b.keys);
    for (let i = 0; i < 5; i++) await failures.record({ client: `10.0.0.${i}`, username: 'x', reason: 'UNAUTHENTICATED' });
    await failures.record({ client: 'a|reason|FORGED', username: 'x', reason: 'UNAUTHENTICATED' });
    const first = await failures.page({ limit: 4 });
    expect(first.rows.map((r) => r.client)).toEqual(['a?reason?FORGED', '10.0.0.4', '10.0.0.3', '10.0.0.2']);
    expect(first.rows[0].reasons).toEqual({ UNAUTHENTICATED: 1 });
    const second = await failures.page({ limit: 4, before: first.next });
    expect(second.rows.map((r) => r.client)).toEqual(['10.0.0.1', '10.0.0.0']);
    expect(second.next).toBeUndefined();
  });

  it('keeps rows for its retention, and at most about maxRows of them', async () => {
    const b = await server.readyBullpen();
    const failures = new SignInFailureLog(b.redis, b.keys, { retentionMs: 300 });
    await failures.record({ client: 'old', username: 'x', reason: 'UNAUTHENTICATED' });
    await sleep(400);
    await failures.record({ client: 'new', username: 'x', reason: 'UNAUTHENTICATED' });
    expect((await failures.page()).rows.map((r) => r.client)).toEqual(['new']);

    const capped = new SignInFailureLog(b.redis, b.keys, { maxRows: 10 });
    for (let i = 0; i < 1_000; i++) await capped.record({ client: `c${i}`, username: 'x', reason: 'UNAUTHENTICATED' });
    // Approximate trimming removes whole stream nodes (100 entries each by default).
    expect(await b.redis.xlen(b.keys.tagged('audit', 'sign-in-failures'))).toBeLessThanOrEqual(200);
  });
});

describe('the operators’ audit: time-based retention', () => {
  it('an append trims entries past their term, and only those, however many there are', async () => {
    const b = await server.readyBullpen();
    const audit = new AuditLog(b.redis, b.keys, { retentionMs: 400 });
    await audit.append({ actor: 'olivia', action: 'queue.pause', target: { kind: 'queue', id: 'q' } });
    await sleep(500);
    for (let i = 0; i < 50; i++) await audit.append({ actor: 'olivia', action: 'job.retry', target: { kind: 'job', id: `q/${i}` } });
    const { entries } = await audit.page({ limit: 100 });
    expect(entries).toHaveLength(50);
    expect(entries.every((e) => e.action === 'job.retry')).toBe(true);
  });

  it('defaults to 400 days, from AUDIT_RETENTION_DAYS', async () => {
    expect((await server.readyBullpen()).audit.retentionMs).toBe(400 * 24 * 3_600_000);
    expect((await server.readyBullpen({ env: { AUDIT_RETENTION_DAYS: '30' } })).audit.retentionMs).toBe(30 * 24 * 3_600_000);
  });
});
