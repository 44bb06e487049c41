import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { handlerDefaultsTable, replaceBetweenMarkers } from '@/scripts/docs-table';

describe('docs/handlers.md', () => {
  it('states the registry’s current defaults (run `npm run docs:handlers` after changing them)', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../docs/handlers.md'), 'utf8');
    expect(replaceBetweenMarkers(doc, handlerDefaultsTable())).toBe(doc);
  });
});
