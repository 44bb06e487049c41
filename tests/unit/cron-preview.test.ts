import { SOURCE_CATALOG } from '../helpers/source-jobs';
import { describe, expect, it } from 'vitest';
import { checkPattern, checkTimezone, describePattern, previewCron } from '@/lib/schedules/cron-preview';
import { SOURCE_SCHEDULES as DEFAULT_SCHEDULES } from '@/jobs/schedules';
import { checkSpec } from '@/lib/schedules/check-spec';

const at = (iso: string) => new Date(iso).getTime();
const iso = (ms: number[]) => ms.map((m) => new Date(m).toISOString());

describe('previewCron', () => {
  it('lists the next fire times after now in UTC, seconds field included', () => {
    const p = previewCron({ pattern: '0 */15 * * * *', tz: 'UTC', now: at('2025-01-01T10:07:30Z'), count: 3 });
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(iso(p.nextRuns)).toEqual(['2025-01-01T10:15:00.000Z', '2025-01-01T10:30:00.000Z', '2025-01-01T10:45:00.000Z']);
    expect(p.description).toBe('Every 15 minutes');
  });

  it('fires on seconds when the seconds field asks for it', () => {
    const p = previewCron({ pattern: '*/20 * * * * *', tz: 'UTC', now: at('2025-01-01T00:00:05Z'), count: 3 });
    expect(p.ok && iso(p.nextRuns)).toEqual(['2025-01-01T00:00:20.000Z', '2025-01-01T00:00:40.000Z', '2025-01-01T00:01:00.000Z']);
  });

  it('warns, without refusing, when a pattern fires more often than once a minute', () => {
    const now = at('2025-01-01T00:00:05Z');
    const everySecond = previewCron({ pattern: '* * * * * *', tz: 'UTC', now });
    expect(everySecond).toMatchObject({ ok: true, warning: expect.stringContaining('every 1 s (up to 86,400 jobs a day)') });
    expect(previewCron({ pattern: '*/20 * * * * *', tz: 'UTC', now })).toMatchObject({
      ok: true,
      warning: expect.stringContaining('every 20 s'),
    });
    // Once a minute or less often: no warning.
    expect(previewCron({ pattern: '0 * * * * *', tz: 'UTC', now })).not.toHaveProperty('warning');
    expect(previewCron({ pattern: '0 0 3 * * *', tz: 'UTC', now })).not.toHaveProperty('warning');
  });

  it('follows Europe/Berlin wall-clock time across the spring DST change', () => {
    // 09:00 Berlin is 08:00Z in winter (CET) and 07:00Z from 30 March 2025 (CEST).
    const p = previewCron({ pattern: '0 0 9 * * *', tz: 'Europe/Berlin', now: at('2025-03-28T12:00:00Z'), count: 4 });
    expect(p.ok && iso(p.nextRuns)).toEqual([
      '2025-03-29T08:00:00.000Z',
      '2025-03-30T07:00:00.000Z',
      '2025-03-31T07:00:00.000Z',
      '2025-04-01T07:00:00.000Z',
    ]);
  });

  it('runs a time that does not exist on the spring-forward night once, an hour later', () => {
    // 02:30 is skipped on 30 March 2025 in Berlin; the run happens at 03:30 CEST (01:30Z).
    const p = previewCron({ pattern: '0 30 2 * * *', tz: 'Europe/Berlin', now: at('2025-03-29T12:00:00Z'), count: 2 });
    expect(p.ok && iso(p.nextRuns)).toEqual(['2025-03-30T01:30:00.000Z', '2025-03-31T00:30:00.000Z']);
  });

  it('runs a time that happens twice on the fall-back night once', () => {
    const p = previewCron({ pattern: '0 30 2 * * *', tz: 'Europe/Berlin', now: at('2025-10-25T12:00:00Z'), count: 2 });
    expect(p.ok && iso(p.nextRuns)).toEqual(['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']);
  });

  it('refuses an out-of-range field, naming the field and the range', () => {
    const p = previewCron({ pattern: '61 * * * * *', tz: 'UTC', now: 0 });
    expect(p).toEqual({ ok: false, field: 'seconds', reason: 'seconds field 61 is out of range 0-59' });
    expect(checkPattern('0 0 25 * * *')).toMatchObject({ ok: false, field: 'hours', reason: 'hours field 25 is out of range 0-23' });
    expect(checkPattern('0 0 0 * 13 *')).toMatchObject({ ok: false, field: 'month' });
    expect(checkPattern('0 x * * * *')).toMatchObject({
      ok: false,
      field: 'minutes',
      reason: expect.stringContaining('minutes field "x" is invalid'),
    });
  });

  it('refuses a 5-field pattern and says how to write it with seconds', () => {
    const p = checkPattern('*/15 * * * *');
    expect(p.ok).toBe(false);
    expect(!p.ok && p.reason).toBe(
      'expected 6 fields (seconds minutes hours day-of-month month day-of-week), got 5; Bullpen patterns start with a seconds field, so "*/15 * * * *" would be "0 */15 * * * *"',
    );
    expect(checkPattern('0 0 0 * * * 2030')).toMatchObject({ ok: false, field: 'pattern', reason: expect.stringContaining('got 7') });
    expect(checkPattern('@daily')).toMatchObject({ ok: false, reason: expect.stringContaining('aliases') });
    expect(checkPattern('   ')).toMatchObject({ ok: false, reason: 'the pattern is empty' });
  });

  it('refuses a pattern whose fields never match together, and hashed values', () => {
    expect(checkPattern('0 0 0 30 2 *')).toMatchObject({ ok: false, field: 'pattern', reason: expect.stringContaining('never match') });
    expect(checkPattern('H * * * * *')).toMatchObject({ ok: false, field: 'seconds', reason: expect.stringContaining('hashed') });
    // THU contains an H but is a day name, not a hash.
    expect(checkPattern('0 0 9 * * THU')).toEqual({ ok: true, pattern: '0 0 9 * * THU' });
  });

  it('normalises whitespace so the stored pattern is what BullMQ gets', () => {
    expect(checkPattern('  0  0 3 * *   * ')).toEqual({ ok: true, pattern: '0 0 3 * * *' });
  });

  it('refuses an unknown or malformed time zone with the reason', () => {
    expect(previewCron({ pattern: '0 0 3 * * *', tz: 'Mars/Olympus_Mons', now: 0 })).toEqual({
      ok: false,
      field: 'timezone',
      reason: 'unknown time zone "Mars/Olympus_Mons"; use an IANA name such as UTC or Europe/Berlin',
    });
    expect(checkTimezone('+02:00')).toMatchObject({ ok: false, field: 'timezone' });
    expect(checkTimezone('')).toMatchObject({ ok: false, reason: 'the time zone is empty' });
    expect(checkTimezone('America/New_York')).toEqual({ ok: true, tz: 'America/New_York' });
  });

  it('describes patterns in plain words, 24-hour clock', () => {
    expect(describePattern('0 0 3 * * *')).toBe('At 03:00');
    expect(describePattern('0 0 */6 * * *')).toBe('On the hour, every 6 hours');
    expect(describePattern('0 30 14 * * 1-5')).toBe('At 14:30, Monday through Friday');
  });

  it('refuses a preview count outside 1..100', () => {
    expect(() => previewCron({ pattern: '0 0 3 * * *', tz: 'UTC', now: 0, count: 0 })).toThrow(RangeError);
  });
});

describe('default schedules', () => {
  it('are the five of the requirements, each a valid pattern, zone and payload for its job type', () => {
    expect(DEFAULT_SCHEDULES.map((s) => [s.name, s.jobType, s.pattern, s.tz])).toEqual([
      ['session-cleanup', 'session-cleanup', '0 */15 * * * *', 'UTC'],
      ['memory-importance-decay', 'memory-importance-decay', '0 0 */6 * * *', 'UTC'],
      ['index-optimization', 'index-optimization', '0 0 3 * * *', 'UTC'],
      ['pattern-training-daily', 'pattern-training', '0 0 4 * * *', 'UTC'],
      ['quota-check', 'quota-check', '0 0 * * * *', 'UTC'],
    ]);
    for (const s of DEFAULT_SCHEDULES) {
      const check = checkSpec(SOURCE_CATALOG, s.jobType, s, at('2025-06-01T00:00:00Z'));
      expect(check, s.name).toMatchObject({ ok: true });
      expect(SOURCE_CATALOG.get(s.jobType).schema.safeParse(s.data).success).toBe(true);
    }
  });

  it('checkSpec refuses data the job type’s schema rejects', () => {
    const check = checkSpec(SOURCE_CATALOG, 'session-cleanup', { pattern: '0 0 3 * * *', tz: 'UTC', data: { maxAgeMs: -5 } }, 0);
    expect(check).toMatchObject({ ok: false, code: 'VALIDATION', field: 'data' });
  });
});
