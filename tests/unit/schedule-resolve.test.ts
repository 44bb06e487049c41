import { describe, expect, it } from 'vitest';
import { AppError } from '@/lib/errors/app-error';
import { NO_HANDLER_REASON, resolveSchedule } from '@/lib/schedules/resolve-schedule';
import { editChange, pauseChange, resetChange, resumeChange, type ChangeContext } from '@/lib/schedules/schedule-changes';
import type { ScheduleDefinition } from '@/lib/schedules/schedule-definition';
import type { StoredOverride } from '@/lib/schedules/schedule-store';
import { TEST_CATALOG } from '../helpers/test-jobs';

/** The schedules' pure core: what BullMQ is given, and what each operator change stores and audits. */
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const def: ScheduleDefinition = {
  name: 'sync-hourly',
  jobType: 'sync',
  pattern: '0 0 * * * *',
  tz: 'UTC',
  data: { channelId: 'C1' },
  description: 'test schedule',
};
const handled = new Set(['sync']);
const ok = (value: Record<string, unknown>): StoredOverride => ({ ok: true, value: { updatedAt: 1, updatedBy: 'ann', ...value } });
const unreadable: StoredOverride = { ok: false, reason: 'stored override is not valid JSON' };

describe('resolveSchedule', () => {
  it('without an override: the code default, active, its payload with the schema’s defaults', () => {
    expect(resolveSchedule(TEST_CATALOG, def, undefined, handled, NOW)).toEqual({
      definition: def,
      override: undefined,
      overridden: false,
      pattern: '0 0 * * * *',
      tz: 'UTC',
      data: { channelId: 'C1' },
      paused: false,
      payload: { channelId: 'C1', limit: 200 },
      active: true,
    });
  });

  it('an override wins field by field; the pattern is stored as BullMQ gets it', () => {
    const stored = ok({ pattern: '0  30 2 * * *', paused: true });
    const r = resolveSchedule(TEST_CATALOG, def, stored, handled, NOW);
    expect(r).toMatchObject({
      overridden: true,
      pattern: '0 30 2 * * *',
      tz: 'UTC',
      data: { channelId: 'C1' },
      paused: true,
      active: true,
    });
    expect(r.override).toEqual((stored as { value: unknown }).value);
    const r2 = resolveSchedule(TEST_CATALOG, def, ok({ tz: 'Europe/Berlin', data: { channelId: 'C9', limit: 5 } }), handled, NOW);
    expect(r2).toMatchObject({
      pattern: '0 0 * * * *',
      tz: 'Europe/Berlin',
      paused: false,
      payload: { channelId: 'C9', limit: 5 },
    });
  });

  it('an unreadable override makes it inactive with the reason, rather than falling back', () => {
    const r = resolveSchedule(TEST_CATALOG, def, unreadable, handled, NOW);
    expect(r).toMatchObject({ overridden: true, override: undefined, pattern: def.pattern, active: false });
    expect(r.inactiveReason).toBe('stored override is not valid JSON; edit or reset the schedule');
    expect(r.payload).toBeUndefined();
  });

  it('an invalid override or default is inactive, saying which and why', () => {
    const bad = resolveSchedule(TEST_CATALOG, def, ok({ data: { channelId: 'not a channel!' } }), handled, NOW);
    expect(bad.active).toBe(false);
    expect(bad.inactiveReason).toMatch(/^the stored override is invalid: invalid sync data: .*channelId.*; edit or reset the schedule$/s);
    const badDefault = resolveSchedule(TEST_CATALOG, { ...def, pattern: '0 0 * * *' }, undefined, handled, NOW);
    expect(badDefault.active).toBe(false);
    expect(badDefault.inactiveReason).toMatch(/^the code default is invalid: expected 6 fields/);
  });

  it('a valid schedule of a type without a handler in this build is inactive for that reason', () => {
    const r = resolveSchedule(TEST_CATALOG, def, undefined, new Set(), NOW);
    expect(r).toMatchObject({ active: false, inactiveReason: NO_HANDLER_REASON, payload: { channelId: 'C1' } });
    expect(NO_HANDLER_REASON).toBe('no handler in this build');
  });
});

const ctx = (stored: StoredOverride | undefined): ChangeContext => ({ jobs: TEST_CATALOG, def, stored, now: NOW, actor: 'bob' });

describe('editChange', () => {
  it('stores the edited fields, normalised, with who and when; audits from → to and the data’s field names only', () => {
    const c = editChange(ctx(undefined), { pattern: ' 0 15  3 * * * ', data: { channelId: 'C2', limit: 9 } });
    expect(c).toEqual({
      next: { pattern: '0 15 3 * * *', data: { channelId: 'C2', limit: 9 }, updatedAt: NOW, updatedBy: 'bob' },
      details: { pattern: { from: '0 0 * * * *', to: '0 15 3 * * *' }, dataFields: ['channelId', 'limit'] },
    });
  });

  it('keeps what the stored override had; the audit’s "from" is the override in force', () => {
    const c = editChange(ctx(ok({ pattern: '0 30 2 * * *', paused: true })), { tz: ' Europe/Berlin ' });
    expect(c).toEqual({
      next: { pattern: '0 30 2 * * *', tz: 'Europe/Berlin', paused: true, updatedAt: NOW, updatedBy: 'bob' },
      details: { tz: { from: 'UTC', to: 'Europe/Berlin' } },
    });
    const p = editChange(ctx(ok({ pattern: '0 30 2 * * *', tz: 'Asia/Tokyo' })), { pattern: '0 0 1 * * *', tz: 'UTC' });
    expect(p?.details).toEqual({ pattern: { from: '0 30 2 * * *', to: '0 0 1 * * *' }, tz: { from: 'Asia/Tokyo', to: 'UTC' } });
  });

  it('replaces an unreadable override, and says so', () => {
    const c = editChange(ctx(unreadable), { data: { channelId: 'C3' } });
    expect(c).toEqual({
      next: { data: { channelId: 'C3' }, updatedAt: NOW, updatedBy: 'bob' },
      details: { dataFields: ['channelId'], replacedUnreadableOverride: true },
    });
  });

  it('checks the result against the defaults it keeps, and refuses with the code, field and reason', () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as AppError;
      }
      throw new Error('not refused');
    };
    const pattern = refusal(() => editChange(ctx(undefined), { pattern: '61 * * * * *' }));
    expect(pattern).toBeInstanceOf(AppError);
    expect(pattern.code).toBe('INVALID_SCHEDULE');
    expect(pattern.message).toBe('Schedule "sync-hourly" was not changed: seconds field 61 is out of range 0-59');
    expect(pattern.details).toEqual({ field: 'seconds', reason: 'seconds field 61 is out of range 0-59' });
    const data = refusal(() => editChange(ctx(ok({ tz: 'Europe/Berlin' })), { data: { channelId: '' } }));
    expect(data.code).toBe('VALIDATION');
    expect(data.details?.field).toBe('data');
    // The stored tz stays in force and is checked with the edit: a bad stored one refuses it.
    const tz = refusal(() => editChange(ctx(ok({ tz: 'Mars/Olympus' })), { pattern: '0 0 1 * * *' }));
    expect(tz.details?.field).toBe('timezone');
    const keptData = refusal(() => editChange(ctx(ok({ data: { channelId: '!' } })), { pattern: '0 0 1 * * *' }));
    expect(keptData.details?.field).toBe('data');
  });
});

describe('pause, resume and reset', () => {
  it('pause: sets paused on top of the override, or does nothing when already paused', () => {
    expect(pauseChange(ctx(undefined))).toEqual({ next: { paused: true, updatedAt: NOW, updatedBy: 'bob' }, details: {} });
    expect(pauseChange(ctx(ok({ tz: 'Asia/Tokyo', paused: false })))).toEqual({
      next: { tz: 'Asia/Tokyo', paused: true, updatedAt: NOW, updatedBy: 'bob' },
      details: {},
    });
    expect(pauseChange(ctx(ok({ paused: true })))).toBeNull();
  });

  it('resume: drops an override that was only the pause, keeps one that changes more, and does nothing when not paused', () => {
    expect(resumeChange(ctx(ok({ paused: true })))).toEqual({ next: undefined, details: {} });
    for (const more of [{ pattern: '0 0 1 * * *' }, { tz: 'Asia/Tokyo' }, { data: { channelId: 'C4' } }]) {
      expect(resumeChange(ctx(ok({ paused: true, ...more }))), JSON.stringify(more)).toEqual({
        next: { ...more, updatedAt: NOW, updatedBy: 'bob' },
        details: {},
      });
    }
    expect(resumeChange(ctx(undefined))).toBeNull();
    expect(resumeChange(ctx(ok({ paused: false, tz: 'Asia/Tokyo' })))).toBeNull();
  });

  it('pause and resume refuse an unreadable override: it must be edited or reset first', () => {
    for (const change of [pauseChange, resumeChange]) {
      let err: unknown;
      try {
        change(ctx(unreadable));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({
        code: 'INVALID_SCHEDULE',
        message: 'Schedule "sync-hourly": stored override is not valid JSON; edit or reset it first',
        details: { name: 'sync-hourly' },
      });
    }
  });

  it('reset: drops any override and audits what it was; nothing stored is nothing to do', () => {
    expect(resetChange(ctx(undefined))).toBeNull();
    expect(resetChange(ctx(ok({ pattern: '0 0 1 * * *', tz: 'Asia/Tokyo', paused: true, data: { channelId: 'C5' } })))).toEqual({
      next: undefined,
      details: { previous: { pattern: '0 0 1 * * *', tz: 'Asia/Tokyo', paused: true } },
    });
    expect(resetChange(ctx(unreadable))).toEqual({ next: undefined, details: { previous: 'unreadable' } });
  });
});
