import { describe, expect, it } from 'vitest';
import { MAX_CHANGE_TEXT, MAX_CHANGES, payloadChanges } from '@/dashboard/jobs/payload-changes';

describe('payloadChanges: an edit as before/after pairs for the audit', () => {
  it('walks objects key by key and compares the rest whole', () => {
    expect(
      payloadChanges(
        { webhookId: 'w', payload: { a: 1, list: [1, 2], gone: true }, same: { x: 1 } },
        { webhookId: 'w', payload: { a: 2, list: [1, 3], added: 'y' }, same: { x: 1 } },
      ),
    ).toEqual([
      { path: 'payload.a', before: 1, after: 2 },
      { path: 'payload.added', after: 'y' },
      { path: 'payload.gone', before: true },
      { path: 'payload.list', before: [1, 2], after: [1, 3] },
    ]);
  });

  it('finds no change in a reordered object, and names a whole-payload change', () => {
    expect(payloadChanges({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toEqual([]);
    expect(payloadChanges([1], [2])).toEqual([{ path: '(whole payload)', before: [1], after: [2] }]);
    expect(payloadChanges({ a: null }, { a: 0 })).toEqual([{ path: 'a', before: null, after: 0 }]);
  });

  it('is bounded: long values are cut, and past MAX_CHANGES the rest is counted', () => {
    const long = 'x'.repeat(MAX_CHANGE_TEXT + 10);
    const [c] = payloadChanges({ a: long }, { a: 'short' });
    expect(String(c.before)).toHaveLength(MAX_CHANGE_TEXT + `… (${MAX_CHANGE_TEXT + 12} characters of JSON)`.length);
    const many = Object.fromEntries(Array.from({ length: MAX_CHANGES + 5 }, (_, i) => [`k${String(i).padStart(3, '0')}`, i]));
    const out = payloadChanges({}, many);
    expect(out).toHaveLength(MAX_CHANGES + 1);
    expect(out.at(-1)).toEqual({ path: '…', after: '5 more changes' });
  });
});
