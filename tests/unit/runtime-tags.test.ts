import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_TAGS } from '@/lib/redis/keys';

const LIB = path.resolve(import.meta.dirname, '../../lib');

describe('RUNTIME_TAGS', () => {
  it('lists every literal hash tag lib/ passes to Keyspace.tagged, so no queue reference resolves into one', () => {
    const used = new Set<string>();
    for (const file of readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      for (const m of readFileSync(path.join(LIB, file), 'utf8').matchAll(/\.tagged\(\s*'([^']+)'/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((t) => !RUNTIME_TAGS.has(t))).toEqual([]);
  });
});
