import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNextPath } from '@/app/sign-in/safe-next-path';

const ORIGIN = 'http://127.0.0.1:3000';

describe('safeNextPath', () => {
  it.each([
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    '//evil.example',
    '/\\evil.example',
    '/\\/evil.example',
    '/.//evil.example',
    '/./\\evil.example',
    'https://evil.example',
    'javascript:alert(1)',
    ' /x',
    '',
  ])('sends %j home', (next) => {
    expect(safeNextPath(next)).toBe('/');
  });

  it.each([
    ['/queues/x?state=failed', '/queues/x?state=failed'],
    ['/dead-letters?status=pending#row-3', '/dead-letters?status=pending#row-3'],
    ['/%09/evil.example', '/%09/evil.example'],
    ['/a/../b', '/b'],
  ])('keeps the same-site path %j', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it('whatever the input, the browser stays on this origin', () => {
    const piece = fc.constantFrom('/', '\\', '\t', '\n', '.', '..', ':', '@', '%2f', '%5c', 'evil.example', 'a', '?', '#', ' ', 'https:');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
        ),
        (raw) => {
          const target = safeNextPath(raw);
          expect(target.startsWith('/')).toBe(true);
          expect(new URL(target, ORIGIN).origin).toBe(ORIGIN);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
