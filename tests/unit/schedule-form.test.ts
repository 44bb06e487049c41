import { describe, expect, it } from 'vitest';
import { formFieldOf, formToEdit, formValuesOf, previewQuerySchema, scheduleFormSchema } from '@/dashboard/schedules/schedules-form';
import { diffFromDefault, formatFireTime, formatUntil, jobPageHref, sameJson, scheduleState } from '@/dashboard/client/schedules-view';

const current = { pattern: '0 */15 * * * *', tz: 'UTC', data: {} };

describe('formToEdit', () => {
  it('sends nothing when nothing changed (whitespace and key order do not count)', () => {
    expect(formToEdit(current, { pattern: '  0  */15 * * * * ', tz: 'UTC', data: '{ }' })).toEqual({ ok: true, edit: null, changed: [] });
    const withData = { ...current, data: { a: 1, b: [1, 2] } };
    expect(formToEdit(withData, { pattern: current.pattern, tz: 'UTC', data: '{"b":[1,2],"a":1}' })).toMatchObject({ edit: null });
  });

  it('sends only the fields that changed, normalised as the service stores them', () => {
    const r = formToEdit(current, { pattern: '0   */5 * * * *', tz: 'UTC', data: '{}' });
    expect(r).toEqual({ ok: true, edit: { pattern: '0 */5 * * * *' }, changed: ['pattern'] });
    const all = formToEdit(current, { pattern: '0 0 3 * * *', tz: ' Europe/Berlin ', data: '{"maxAgeMs": 1000}' });
    expect(all).toEqual({
      ok: true,
      edit: { pattern: '0 0 3 * * *', tz: 'Europe/Berlin', data: { maxAgeMs: 1000 } },
      changed: ['pattern', 'tz', 'data'],
    });
  });

  it('reports every bad field at once, in words an operator can act on', () => {
    const r = formToEdit(current, { pattern: '*/15 * * * *', tz: 'Mars/Olympus', data: '[1]' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.fieldErrors.pattern?.[0]).toContain('expected 6 fields');
    expect(r.fieldErrors.pattern?.[0]).toContain('"0 */15 * * * *"');
    expect(r.fieldErrors.tz?.[0]).toContain('unknown time zone');
    expect(r.fieldErrors.data?.[0]).toContain('JSON object');
    expect(r.message).toContain('Cron pattern:');
  });

  it('names the field of an out-of-range value and a broken JSON position', () => {
    const r = formToEdit(current, { pattern: '61 * * * * *', tz: 'UTC', data: '{"a": }' });
    if (r.ok) throw new Error('expected errors');
    expect(r.fieldErrors.pattern?.[0]).toBe('seconds field 61 is out of range 0-59');
    expect(r.fieldErrors.data?.[0]).toMatch(/^line 1, column 7: /);
    expect(r.fieldErrors.tz).toBeUndefined();
  });
});

describe('form plumbing', () => {
  it('maps the service’s problem fields onto form fields', () => {
    expect(formFieldOf('seconds')).toBe('pattern');
    expect(formFieldOf('day-of-week')).toBe('pattern');
    expect(formFieldOf('pattern')).toBe('pattern');
    expect(formFieldOf('timezone')).toBe('tz');
    expect(formFieldOf('data')).toBe('data');
  });

  it('starts the form from the effective schedule', () => {
    expect(formValuesOf({ pattern: '0 0 3 * * *', tz: 'UTC', data: { a: 1 } })).toEqual({
      pattern: '0 0 3 * * *',
      tz: 'UTC',
      data: '{\n  "a": 1\n}',
    });
  });

  it('validates what the form posts and what the preview is asked', () => {
    expect(scheduleFormSchema.safeParse({ name: 'quota-check', pattern: 'x', tz: 'UTC', data: '{}' }).success).toBe(true);
    expect(scheduleFormSchema.safeParse({ name: 'Quota:Check', pattern: 'x', tz: 'UTC', data: '{}' }).success).toBe(false);
    expect(scheduleFormSchema.safeParse({ name: 'quota-check', pattern: 'x', tz: 'UTC', data: '{}', extra: 1 }).success).toBe(false);
    expect(previewQuerySchema.parse({ pattern: '0 * * * * *' })).toEqual({ pattern: '0 * * * * *', tz: 'UTC' });
  });

  it('compares JSON deeply, ignoring key order and undefined keys', () => {
    expect(sameJson({ a: { b: [1, { c: 2 }] }, d: undefined }, { a: { b: [1, { c: 2 }] } })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });
});

describe('schedules view', () => {
  const at = Date.UTC(2025, 0, 31, 3, 0, 0); // a Friday

  it('writes fire times in the schedule’s zone, with the zone', () => {
    expect(formatFireTime(at, 'UTC')).toEqual({ at, local: 'Fri, 31 Jan 2025, 03:00:00 UTC', iso: '2025-01-31T03:00:00.000Z' });
    expect(formatFireTime(at, 'Europe/Berlin').local).toBe('Fri, 31 Jan 2025, 04:00:00 CET');
  });

  it('says how far away a fire time is', () => {
    expect(formatUntil(at, at + 1)).toBe('now');
    expect(formatUntil(at + 42_000, at)).toBe('in 42 s');
    expect(formatUntil(at + 4 * 60_000, at)).toBe('in 4 min');
    expect(formatUntil(at + 125 * 60_000, at)).toBe('in 2 h 5 min');
    expect(formatUntil(at + 3 * 86_400_000, at)).toBe('in 3 d');
  });

  it('shows what differs from the code’s default', () => {
    const defaults = { pattern: '0 0 3 * * *', tz: 'UTC', data: {}, patternText: 'At 03:00' };
    expect(diffFromDefault({ ...defaults, defaults })).toEqual([]);
    expect(diffFromDefault({ pattern: '0 30 2 * * *', tz: 'UTC', data: { a: 1 }, defaults })).toEqual([
      { field: 'pattern', current: '0 30 2 * * *', default: '0 0 3 * * *' },
      { field: 'data', current: '{"a":1}', default: '{}' },
    ]);
  });

  it('links a run to its job page', () => {
    expect(jobPageHref('quota-check', 'manual:quota-check:1738296000000')).toBe(
      '/queues/quota-check/jobs/manual%3Aquota-check%3A1738296000000',
    );
  });

  it('names the state', () => {
    expect(scheduleState({ active: false, paused: true })).toBe('inactive');
    expect(scheduleState({ active: true, paused: true })).toBe('paused');
    expect(scheduleState({ active: true, paused: false })).toBe('running');
  });
});
