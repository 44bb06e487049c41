import { describe, expect, it } from 'vitest';
import {
  type ActionFormFields,
  MAX_ACTION_DEPTH,
  MAX_ACTION_VALUES,
  isMultipartActionBody,
  isPlainActionBody,
} from '@/dashboard/http/action-body';

/*
 * What proxy.ts lets through to React's decoder: what the dashboard's pages send, and
 * nothing that decoder would fail on with a 500 (docs/security.md, "Malformed input").
 */

const ACTION = '602dda9577605a3265bbd1685ac0e112727eca1808';

describe('isPlainActionBody', () => {
  it('accepts what the dashboard’s pages send', () => {
    expect(isPlainActionBody('[{"id":"dlq-1","expectedReplays":0,"payload":"$$ starts with a dollar"}]')).toBe(true);
    expect(isPlainActionBody('[{"a":"$undefined","b":"$NaN","c":"$-0","d":"$n123","e":"$D2026-11-24T03:00:00.000Z"}]')).toBe(true);
    expect(isPlainActionBody('[]')).toBe(true);
    expect(
      isPlainActionBody(`[{"entries":${JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: `dlq-${i}`, expectedReplays: 0 })))}}]`),
    ).toBe(true);
  });

  it('refuses references to parts a text body does not have, and non-JSON', () => {
    for (const body of [
      '[{"id":["$"]}]',
      '[{"tz":["$S"]}]',
      '["$1"]',
      '["$@1"]',
      '[{"x":{"y":"$K1"}}]',
      '["$Dnot-a-date"]',
      'not json',
      '',
    ]) {
      expect(isPlainActionBody(body), body).toBe(false);
    }
  });

  it('refuses arguments that are not an array: Next would apply the action to them and fail', () => {
    for (const body of ['"str"', '5', 'null', '{}', 'true']) expect(isPlainActionBody(body), body).toBe(false);
  });

  it('refuses a 300k-element array with a clear false, not a RangeError', () => {
    const big = `[${Array.from({ length: 300_000 }, () => '0').join(',')}]`;
    expect(() => isPlainActionBody(big)).not.toThrow();
    expect(isPlainActionBody(big)).toBe(false);
    expect(isPlainActionBody(`[${Array.from({ length: MAX_ACTION_VALUES - 1 }, () => '0').join(',')}]`)).toBe(true);
  });

  it('refuses a nesting deeper than any page sends, which React would recurse into', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(isPlainActionBody(nested(MAX_ACTION_DEPTH + 1))).toBe(true);
    expect(isPlainActionBody(nested(MAX_ACTION_DEPTH + 2))).toBe(false);
    expect(isPlainActionBody(nested(100_000))).toBe(false);
  });

  it('refuses a BigInt past the 300 digits React takes', () => {
    expect(isPlainActionBody(`["$n${'1'.repeat(300)}"]`)).toBe(true);
    expect(isPlainActionBody(`["$n${'1'.repeat(301)}"]`)).toBe(false);
  });
});

describe('isMultipartActionBody', () => {
  it('accepts a form posted by the client router: the arguments in 0, the form as $K', () => {
    const fields: ActionFormFields = [
      ['0', '[null,"$K1"]'],
      ['_1_username', 'admin'],
      ['_1_password', 'secret'],
    ];
    expect(isMultipartActionBody(fields, true)).toBe(true);
    expect(isMultipartActionBody([['0', '["$K1"]']], true)).toBe(true);
    expect(isMultipartActionBody([['0', '[{"ok":false,"code":"VALIDATION","message":"x","fieldErrors":"$undefined"},"$K1"]']], true)).toBe(
      true,
    );
  });

  it('refuses a fetch body whose references lead nowhere, or that has no single text 0', () => {
    const bad: ActionFormFields[] = [
      [['0', '["$1"]']],
      [['0', '["$Q1"]']],
      [['0', '["$W1"]']],
      [['0', '["$B1"]']],
      [['0', '["$@1"]']],
      [['0', '["$h1"]']],
      [['0', '["$T"]']],
      [['0', '["$R1"]']],
      [['0', '["$K"]']],
      [['0', '["$Kzz"]']],
      [['0', '["$1:a:b"]']],
      [['0', 'not json']],
      [['0', '{"not":"an array"}']],
      [['0', null]],
      [['_1_x', 'y']],
      [
        ['0', '[]'],
        ['0', '[]'],
      ],
    ];
    for (const fields of bad) expect(isMultipartActionBody(fields, true), JSON.stringify(fields)).toBe(false);
  });

  it('accepts a form posted before hydration: an action id, or a descriptor with bound arguments', () => {
    expect(
      isMultipartActionBody(
        [
          [`$ACTION_ID_${ACTION}`, ''],
          ['name', 'x'],
        ],
        false,
      ),
    ).toBe(true);
    const bound: ActionFormFields = [
      ['$ACTION_REF_1', ''],
      ['$ACTION_1:0', `{"id":"${ACTION}","bound":"$@1"}`],
      ['$ACTION_1:1', '[null]'],
      ['$ACTION_KEY', 'k3210'],
      ['username', 'admin'],
    ];
    expect(isMultipartActionBody(bound, false)).toBe(true);
    expect(
      isMultipartActionBody(
        [
          ['$ACTION_REF_1', ''],
          ['$ACTION_1:0', `{"id":"${ACTION}","bound":null}`],
        ],
        false,
      ),
    ).toBe(true);
    // A multipart post with no action in it is not an action: Next renders the page.
    expect(isMultipartActionBody([['anything', '$1']], false)).toBe(true);
  });

  it('refuses a descriptor that is not JSON, names no id, or whose bound arguments are missing or malformed', () => {
    const descriptor = (d: string, ...more: Array<[string, string]>): ActionFormFields => [
      ['$ACTION_REF_1', ''],
      ['$ACTION_1:0', d],
      ...more,
    ];
    const bad: ActionFormFields[] = [
      descriptor(`{"id":"${ACTION}","bound":"$@5"}`),
      descriptor(`{"id":"${ACTION}","bound":"$@1"}`),
      descriptor(`{"id":"${ACTION}","bound":"$@1"}`, ['$ACTION_1:1', '["$1"]']),
      descriptor(`{"id":"${ACTION}","bound":"$@1"}`, ['$ACTION_1:1', '{"a":1}']),
      descriptor(`{"id":"${ACTION}","bound":"$1"}`, ['$ACTION_1:1', '[]']),
      descriptor(`{"id":"${ACTION}","bound":[]}`),
      descriptor(`{"id":"${ACTION}"`),
      descriptor('{"id":5}'),
      descriptor('[]'),
      [['$ACTION_REF_1', '']],
    ];
    for (const fields of bad) expect(isMultipartActionBody(fields, false), JSON.stringify(fields)).toBe(false);
  });
});
