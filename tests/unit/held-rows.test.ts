import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdRows, newIds } from '@/dashboard/client/held-rows';

const row = (id: string, status = 'pending') => ({ id, status });

describe('a held live list', () => {
  it('keeps the shown order, takes fresh values in place, keeps departed rows and holds back new ones', () => {
    const shown = [row('c'), row('b'), row('a')];
    // A refresh re-sorted (a reopened record moved up), one row left and two arrived.
    const fresh = [row('e'), row('a', 'replayed'), row('d'), row('c')];
    const held = holdRows(shown, fresh);
    expect(held.rows).toEqual([row('c'), row('b'), row('a', 'replayed')]);
    expect([...held.departed]).toEqual(['b']);
    expect(held.arrived.map((r) => r.id)).toEqual(['e', 'd']);
  });

  it('never moves a shown row, never loses one and never shows a row twice', () => {
    const ids = fc.uniqueArray(fc.stringMatching(/^[a-h]$/), { maxLength: 8 });
    fc.assert(
      fc.property(ids, ids, (a, b) => {
        const shown = a.map((id) => row(id));
        const fresh = b.map((id) => row(id, 'fresh'));
        const held = holdRows(shown, fresh);
        expect(held.rows.map((r) => r.id)).toEqual(a);
        const all = [...held.rows, ...held.arrived].map((r) => r.id);
        expect(new Set(all).size).toBe(all.length);
        expect(new Set(all)).toEqual(new Set([...a, ...b]));
        for (const r of held.rows) expect(r.status).toBe(held.departed.has(r.id) ? 'pending' : 'fresh');
      }),
    );
  });

  it('names the rows an unheld refresh added', () => {
    expect(newIds([row('a'), row('b')], [row('c'), row('a'), row('d')])).toEqual(['c', 'd']);
    expect(newIds([], [])).toEqual([]);
  });
});
