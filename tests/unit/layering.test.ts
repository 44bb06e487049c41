import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(name)) out.push(p);
    }
  };
  walk(path.join(root, dir));
  return out;
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) found.push(m[1] ?? m[2] ?? m[3]);
  return found;
}

function violations(dir: string, forbidden: (spec: string, file: string) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    imports(file)
      .filter((spec) => forbidden(spec, file))
      .map((spec) => `${path.relative(root, file)} imports ${spec}`),
  );
}

describe('imports run one way: app, components, worker → lib', () => {
  it('lib never imports next/* or the layers above it', () => {
    const bad = violations('lib', (spec, file) => {
      if (spec === 'next' || spec.startsWith('next/')) return true;
      if (/^@\/(app|components|worker|scripts)\//.test(spec)) return true;
      const resolved = spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)) : '';
      return /^(app|components|worker|scripts)\//.test(resolved);
    });
    expect(bad).toEqual([]);
  });

  it('only lib talks to BullMQ and Redis', () => {
    const driver = (spec: string) => spec === 'bullmq' || spec.startsWith('bullmq/') || spec === 'ioredis';
    expect([...violations('app', driver), ...violations('components', driver), ...violations('worker', driver)]).toEqual([]);
  });

  it('components never reach Redis through lib’s services directly', () => {
    const bad = violations('components', (spec) => /^@\/lib\/(bullpen|redis\/|jobs\/queues|dlq\/dead-letter-store)/.test(spec));
    expect(bad).toEqual([]);
  });
});
