import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '@/lib/jobs/job-definition';
import { handlersReference, replaceBetweenMarkers } from '@/scripts/docs-table';

describe('docs/handlers.md', () => {
  it('states the job table as it is (run `npm run docs:handlers` after changing it)', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/handlers.md'), 'utf8');
    expect(replaceBetweenMarkers(doc, handlersReference())).toBe(doc);
  });

  it('lists any table’s types with their defaults, group and example, counted from the table', () => {
    const base = { description: 'd', attempts: 2, backoff: { type: 'fixed', delayMs: 60_000 }, timeoutMs: 30_000 } as const;
    const text = handlersReference([
      defineJob({ name: 'fold', group: 'paper', schema: z.object({ n: z.number() }), example: { n: 3 }, ...base }),
      defineJob({ name: 'cut', group: 'paper', schema: z.object({ edge: z.string() }), example: { edge: 'a|b' }, ...base }),
      defineJob({ name: 'glue', group: 'craft', schema: z.object({}), example: {}, ...base, priority: 'HIGH', critical: true }),
    ]);
    expect(text.split('\n', 1)[0]).toBe('3 job types in 2 groups.');
    // No page documents these groups, so their names are not links.
    expect(text).toContain('| `fold` | paper | 2 | fixed 1 min | 30 s | MEDIUM (5) | 1 | — |  |');
    expect(text).toContain('| `glue` | craft | 2 | fixed 1 min | 30 s | HIGH (3) | 1 | — | yes |');
    expect(text).toContain('- paper: `fold`, `cut`\n- craft: `glue`');
    expect(text).toContain('| `cut` | `{"edge":"a\\|b"}` |');
  });

  it('refuses a doc without its markers', () => {
    expect(() => replaceBetweenMarkers('# Job handlers\n', 'x')).toThrow(/lacks the markers/);
  });
});
