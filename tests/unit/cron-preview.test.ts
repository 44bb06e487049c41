import { TEST_CATALOG } from '../helpers/test-jobs';
import { describe, expect, it } from 'vitest';
import { checkPattern, checkTimezone, describePattern, previewCron } from '@/lib/schedules/cron-preview';
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

describe('cron checks: each refusal’s field and words', () => {
  it('pattern: empty, too long, an alias, a field count', () => {
    expect(checkPattern(' ')).toEqual({ ok: false, field: 'pattern', reason: 'the pattern is empty' });
    expect(checkPattern(`0 0 0 * * * ${' '.repeat(10)}${'x'.repeat(200)}`)).toEqual({
      ok: false,
      field: 'pattern',
      reason: 'the pattern is longer than 200 characters',
    });
    // Exactly 200 characters is allowed.
    const exact = `${Array.from({ length: 60 }, (_, i) => i).join(',')} 0,1,2,3,4,5,6,7,8,9,10 0 * * *`;
    expect(exact).toHaveLength(200);
    expect(checkPattern(exact)).toEqual({ ok: true, pattern: exact });
    expect(checkPattern('@daily')).toEqual({
      ok: false,
      field: 'pattern',
      reason: 'aliases like @daily are not accepted; write the 6 fields, e.g. "0 0 0 * * *" for every day at midnight',
    });
    expect(checkPattern('0 0 0 * * * *')).toEqual({
      ok: false,
      field: 'pattern',
      reason: 'expected 6 fields (seconds minutes hours day-of-month month day-of-week), got 7',
    });
  });

  it('time zone: trimmed, empty, too long, not a name, unknown', () => {
    expect(checkTimezone(' Europe/Berlin ')).toEqual({ ok: true, tz: 'Europe/Berlin' });
    expect(checkTimezone('  ')).toEqual({ ok: false, field: 'timezone', reason: 'the time zone is empty' });
    const notAName = (tz: string) => ({
      ok: false,
      field: 'timezone',
      reason: `"${tz}" is not an IANA time zone name such as UTC or Europe/Berlin`,
    });
    const unknown = (tz: string) => ({
      ok: false,
      field: 'timezone',
      reason: `unknown time zone "${tz}"; use an IANA name such as UTC or Europe/Berlin`,
    });
    expect(checkTimezone('A'.repeat(65))).toEqual(notAName('A'.repeat(65)));
    expect(checkTimezone('A'.repeat(64))).toEqual(unknown('A'.repeat(64)));
    expect(checkTimezone('_UTC')).toEqual(notAName('_UTC'));
    expect(checkTimezone('Europe/Berlin!')).toEqual(notAName('Europe/Berlin!'));
    expect(checkTimezone('Etc/GMT+2')).toEqual({ ok: true, tz: 'Etc/GMT+2' });
  });

  it('preview: five fire times by default, up to 100, a count outside that named', () => {
    const base = { pattern: '0 0 3 * * *', tz: 'UTC', now: 0 };
    const five = previewCron(base);
    expect(five.ok && five.nextRuns.length).toBe(5);
    const hundred = previewCron({ ...base, count: 100 });
    expect(hundred.ok && hundred.nextRuns.length).toBe(100);
    expect(() => previewCron({ ...base, count: 101 })).toThrow('count must be an integer from 1 to 100, got 101');
    expect(() => previewCron({ ...base, count: 2.5 })).toThrow(RangeError);
    expect(previewCron({ ...base, tz: 'Nowhere/City' })).toMatchObject({ ok: false, field: 'timezone' });
  });
});

describe('checkSpec', () => {
  it('refuses data the job type’s schema rejects', () => {
    const check = checkSpec(TEST_CATALOG, 'sync', { pattern: '0 0 3 * * *', tz: 'UTC', data: { channelId: 'C1', limit: 0 } }, 0);
    expect(check).toMatchObject({ ok: false, code: 'VALIDATION', field: 'data' });
  });
});
