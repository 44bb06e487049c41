import { TEST_CATALOG } from '../helpers/test-jobs';
import { describe, expect, it } from 'vitest';
import {
  MAX_PAYLOAD_TEXT,
  checkPayloadText,
  checkPayloadValue,
  locateJsonError,
  parseJsonText,
  payloadToText,
} from '@/dashboard/client/dead-letters-payload';

// The payload editor of a dead letter: JSON errors with their position, then the job
// type's schema, as the operator types (the server checks the schema again).

describe('parseJsonText', () => {
  it('parses valid JSON', () => {
    expect(parseJsonText('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('says on which line and column the JSON breaks', () => {
    const r = parseJsonText('{\n  "a": 1\n  "b": 2\n}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.line).toBe(3);
    expect(r.column).toBe(3);
    expect(r.message).toMatch(/^line 3, column 3: /);
  });

  it('keeps only the reason of an engine message that quotes the text back', () => {
    const r = parseJsonText('{"a": }');
    expect(r).toMatchObject({ ok: false, line: 1, column: 7 });
    if (!r.ok) expect(r.message).not.toContain('is not valid JSON');
  });

  it('places an unexpected end at the end of the text', () => {
    const r = parseJsonText('{"a":\n');
    expect(r).toMatchObject({ ok: false, line: 2 });
  });

  it('refuses empty and oversized text with a sentence', () => {
    expect(parseJsonText('   ')).toEqual({ ok: false, message: 'The JSON is empty' });
    const r = parseJsonText(`"${'x'.repeat(MAX_PAYLOAD_TEXT)}"`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('longer than');
  });
});

describe('checkPayloadValue / checkPayloadText', () => {
  const valid = { webhookId: 'wh_1', event: 'memory.created', payload: { id: 7 } };

  it('accepts a payload the job type’s schema accepts', () => {
    expect(checkPayloadValue(TEST_CATALOG, 'notify', valid)).toEqual({ ok: true, value: valid });
    expect(checkPayloadText(TEST_CATALOG, 'notify', payloadToText(valid))).toEqual({ ok: true, value: valid });
  });

  it('lists each schema issue with its field path', () => {
    const r = checkPayloadValue(TEST_CATALOG, 'notify', { webhookId: '', payload: 'nope' });
    expect(r.ok).toBe(false);
    if (r.ok || r.stage !== 'schema') throw new Error('expected schema issues');
    expect(r.issues.map((i) => i.path).sort()).toEqual(['event', 'payload', 'webhookId']);
    expect(r.message).toContain('webhookId');
  });

  it('reports broken JSON before looking at the schema', () => {
    expect(checkPayloadText(TEST_CATALOG, 'notify', '{"webhookId": }')).toMatchObject({ ok: false, stage: 'json' });
  });

  it('refuses a type the build does not know', () => {
    expect(checkPayloadValue(TEST_CATALOG, 'fax-dispatch', {})).toMatchObject({ ok: false, stage: 'type' });
  });

  it('pretty-prints what the editor starts with', () => {
    expect(payloadToText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(payloadToText(undefined)).toBe('null');
  });
});

describe('locateJsonError', () => {
  it('finds the first offending character, or the end of a cut text', () => {
    expect(locateJsonError('{"a": 1}')).toBeUndefined();
    expect(locateJsonError(' [1, "x\\u00e9", -0.5e3, true, false, null, {}] ')).toBeUndefined();
    expect(locateJsonError('{"a": }')).toBe(6);
    expect(locateJsonError('{"a": 1,}')).toBe(8);
    expect(locateJsonError('[1 2]')).toBe(3);
    expect(locateJsonError('{"a": tru}')).toBe(9);
    expect(locateJsonError('{"a": "x\\q"}')).toBe(9);
    expect(locateJsonError('{"a": 01}')).toBe(7);
    expect(locateJsonError('[1] x')).toBe(4);
    expect(locateJsonError('{"a": [1,')).toBe(9);
  });

  it('agrees with JSON.parse on what is valid', () => {
    for (const t of ['0', '"s"', '[]', '{"k":{"k":[null]}}', '1e5', '-1.25', '{"a":1,"a":2}']) {
      expect(locateJsonError(t), t).toBeUndefined();
      expect(() => JSON.parse(t)).not.toThrow();
    }
    for (const t of ['', '[', '{"a"}', "{'a':1}", 'NaN', '.5', '1.', '"\t"', '{"a":1}}']) {
      expect(locateJsonError(t), t).not.toBeUndefined();
      expect(() => JSON.parse(t)).toThrow();
    }
  });
});
