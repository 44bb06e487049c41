import { describe, expect, it } from 'vitest';
import { payloadMatcher } from '@/dashboard/queues/payload-match';

const job = (payload: unknown, orgId = 'org-a') => JSON.stringify({ payload, tenant: { orgId }, requestId: 'r1' });

describe('payloadMatcher', () => {
  it('has nothing to do without a data test (a name filter alone reads no data)', () => {
    expect(payloadMatcher({})).toBeUndefined();
    expect(payloadMatcher({ name: 'x' })).toBeUndefined();
  });

  it('finds a substring of the stored JSON text, case-sensitive', () => {
    const m = payloadMatcher({ contains: 'needle \\"x\\"' })!;
    expect(m(job({ note: 'needle "x"' }))).toBe(true);
    expect(m(job({ note: 'Needle "x"' }))).toBe(false);
  });

  it('reads a dotted path on the decoded data: nested keys, array indexes, numbers, booleans, null', () => {
    const data = job({ user: { id: 42, vip: true, tags: ['t0', 't1'], gone: null, ratio: 0.5 } });
    const at = (path: string, value: string) => payloadMatcher({ path, value })!(data);
    expect(at('payload.user.id', '42')).toBe(true);
    expect(at('payload.user.id', '4')).toBe(false);
    expect(at('payload.user.vip', 'true')).toBe(true);
    expect(at('payload.user.tags.1', 't1')).toBe(true);
    expect(at('payload.user.gone', 'null')).toBe(true);
    expect(at('payload.user.ratio', '0.5')).toBe(true);
    expect(at('payload.user', '[object Object]')).toBe(false);
    expect(at('payload.user.tags.x', 't0')).toBe(false);
    expect(at('payload.nothing.here', 'undefined')).toBe(false);
  });

  it('matches a value JSON escapes or that holds no plain characters by decoding (the case that decoded in Redis)', () => {
    const m = payloadMatcher({ path: 'payload.code', value: 'a=/"' })!;
    expect(m(job({ code: 'a=/"' }))).toBe(true);
    expect(m(job({ code: 'a=/' }))).toBe(false);
    expect(m('{"payload":{"code":"a=\\/\\""}}')).toBe(true);
  });

  it('never walks into the prototype: only own properties and array elements', () => {
    const data = job({ list: [1] });
    expect(payloadMatcher({ path: 'payload.constructor.name', value: 'Object' })!(data)).toBe(false);
    expect(payloadMatcher({ path: 'payload.list.length', value: '1' })!(data)).toBe(false);
    expect(payloadMatcher({ path: 'payload.__proto__', value: 'x' })!(job(JSON.parse('{"__proto__":"x"}')))).toBe(true);
  });

  it('keeps a tenant filter to the envelope tenant, and every test given must hold', () => {
    const m = payloadMatcher({ tenant: 'org-b', contains: 'hay', path: 'payload.i', value: '7' })!;
    expect(m(job({ i: 7, note: 'hay' }, 'org-b'))).toBe(true);
    expect(m(job({ i: 7, note: 'hay' }, 'org-a'))).toBe(false);
    expect(m(job({ i: 7, note: 'straw' }, 'org-b'))).toBe(false);
    expect(m(job({ i: 8, note: 'hay' }, 'org-b'))).toBe(false);
    // The orgId text elsewhere is not the tenant.
    expect(payloadMatcher({ tenant: 'org-b' })!(JSON.stringify({ payload: { orgId: 'org-b' } }))).toBe(false);
    expect(payloadMatcher({ tenant: 'org-b' })!('not json "orgId":"org-b"')).toBe(false);
  });
});
