import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * `npm run deps` (.dependency-cruiser.cjs) is what keeps imports one way and the graph
 * without cycles. These cases show it refuses each kind of violation, on a small tree of
 * its own, so a rule that silently stopped matching would fail here.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require('../../.dependency-cruiser.cjs') as { forbidden: unknown[] };

let dir: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-deps-'));
  write('lib/ok.ts', 'export const ok = 1;\n');
  write('lib/cycle-a.ts', "import { b } from './cycle-b';\nexport const a = () => b;\n");
  write('lib/cycle-b.ts', "import { a } from './cycle-a';\nexport const b = () => a;\n");
  write('lib/upward.ts', "import { page } from '../app/page';\nexport const x = page;\n");
  write('app/page.ts', "import { ok } from '../lib/ok';\nexport const page = ok;\n");
  write('worker/main.ts', "import { ok } from '../lib/ok';\nexport const w = ok;\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function violations(): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const result = await cruise(['lib', 'app', 'worker'], { ruleSet: { forbidden: config.forbidden } as never, validate: true });
    const out = result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

describe('the dependency rules', () => {
  it('refuse a cycle and lib importing a layer above it, and accept imports that run one way', async () => {
    const found = await violations();
    expect(found).toContain('lib-not-upward: lib/upward.ts → app/page.ts');
    expect(found.some((v) => v.startsWith('no-circular: lib/cycle-'))).toBe(true);
    expect(found.filter((v) => v.includes('worker/main.ts') || v.startsWith('lib-not-upward: app/'))).toEqual([]);
  });
});
