import { describe, expect, it } from 'vitest';
import { mutantsOf, testsFor } from '../../scripts/mutation/lua-mutants';

describe('the Lua mutation runner (scripts/mutation/lua-mutants.ts)', () => {
  it('runs the reconciler’s tests against the DLQ scripts, the large-jobs one included', () => {
    // dlq-failed-job.lua is loaded by the reconciler only; its large-jobs test names no store call.
    const tests = testsFor('lib/dlq/lua', undefined);
    expect(tests).toContain('tests/integration/dlq-reconciler.test.ts');
    expect(tests).toContain('tests/integration/dlq-reconciler-large-jobs.test.ts');
  });

  it('takes the tests it is given over the map', () => {
    expect(testsFor('lib/dlq/lua', ['tests/integration/dlq-store.test.ts'])).toEqual(['tests/integration/dlq-store.test.ts']);
  });

  it('deletes each code line and negates each condition, leaving comments and block ends', () => {
    const mutants = mutantsOf('-- a comment\nif x == 1 then\n  return 1\nend\n');
    expect(mutants.map((m) => [m.line, m.kind, m.replacement])).toEqual([
      [2, 'delete', ''],
      [2, 'negate', 'if not (x == 1) then'],
      [3, 'delete', ''],
    ]);
  });
});
