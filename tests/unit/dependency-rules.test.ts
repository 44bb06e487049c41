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
// eslint-disable-next-line @typescript-eslint/no-require-imports
const clientConfig = require('../../.dependency-cruiser-client.cjs') as { forbidden: unknown[] };

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
  write('worker/main.ts', "import { app } from '../jobs/app';\nexport const w = app;\n");
  write('jobs/app.ts', "import { ok } from '../lib/ok';\nexport const app = ok;\n");
  write('jobs/upward.ts', "import { w } from '../worker/main';\nexport const u = w;\n");
  write('lib/knows-app.ts', "import { app } from '../jobs/app';\nexport const k = app;\n");
  write('lib/knows-dashboard.ts', "import { read } from '../dashboard/queues/read';\nexport const k = read;\n");
  write('jobs/knows-dashboard.ts', "import { PAGE } from '../dashboard/client/view';\nexport const j = PAGE;\n");
  write('dashboard/upward.ts', "import { page } from '../app/page';\nexport const d = page;\n");
  write('app/dashboard-page.ts', "import { read } from '../dashboard/queues/read';\nexport const p = read;\n");
  write('lib/redis/connection.ts', 'export type RedisClient = { ping(): Promise<string> };\nexport const connect = () => 1;\n');
  write(
    'dashboard/client/view.ts',
    "import type { RedisClient } from '../../lib/redis/connection';\nexport type View = { client?: RedisClient };\nexport const PAGE = 50;\n",
  );
  write(
    'dashboard/queues/read.ts',
    "import { connect } from '../../lib/redis/connection';\nexport type Row = { id: string };\nexport const read = () => connect();\n",
  );
  write(
    'components/safe.tsx',
    "import type { View } from '../dashboard/client/view';\nimport type { Row } from '../dashboard/queues/read';\nimport { PAGE } from '../dashboard/client/view';\nexport const s: View | Row | number = PAGE;\n",
  );
  write('components/leaky.tsx', "import { read } from '../dashboard/queues/read';\nexport const l = read;\n");
  write('components/past-the-client-part.tsx', "import { ok } from '../lib/ok';\nexport const p = ok;\n");
  write('dashboard/client/leaky.ts', "import { read } from '../queues/read';\nexport const c = read;\n");
  write(
    'examples/mini/jobs.ts',
    "import { app } from '../../jobs/app';\nimport { ok } from '../../lib/ok';\nexport const m = [app, ok];\n",
  );
  // The registry of applications (applications.ts): processes choose from it, applications and lib/ never see it.
  write('applications.ts', "import { app } from './jobs/app';\nexport const APPLICATIONS = { app };\n");
  write('worker/choose.ts', "import { APPLICATIONS } from '../applications';\nexport const c = APPLICATIONS;\n");
  write('jobs/choose.ts', "import { APPLICATIONS } from '../applications';\nexport const c = APPLICATIONS;\n");
  write('lib/choose.ts', "import { APPLICATIONS } from '../applications';\nexport const c = APPLICATIONS;\n");
  // The runtime's tests on their own table; the shipped application's tests and helpers apart.
  write('tests/helpers/test-jobs.ts', "import { ok } from '../../lib/ok';\nexport const TEST_JOBS = [ok];\n");
  write('tests/helpers/shipped-jobs.ts', "import { app } from '../../jobs/app';\nexport const SHIPPED = app;\n");
  write('tests/integration/queues.test.ts', "import { TEST_JOBS } from '../helpers/test-jobs';\nexport const t = TEST_JOBS;\n");
  write('tests/integration/knows-app.test.ts', "import { app } from '../../jobs/app';\nexport const t = app;\n");
  write('tests/unit/knows-helper.test.ts', "import { SHIPPED } from '../helpers/shipped-jobs';\nexport const t = SHIPPED;\n");
  write('tests/unit/knows-registry.test.ts', "import { APPLICATIONS } from '../../applications';\nexport const t = APPLICATIONS;\n");
  write(
    'tests/integration/app/handler.test.ts',
    "import { SHIPPED } from '../../helpers/shipped-jobs';\nimport { app } from '../../../jobs/app';\nexport const t = [SHIPPED, app];\n",
  );
  write('tests/e2e/product.spec.ts', "import { APPLICATIONS } from '../../applications';\nexport const t = APPLICATIONS;\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function violations(): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const result = await cruise(['lib', 'app', 'dashboard', 'worker', 'jobs', 'examples', 'components', 'tests', 'applications.ts'], {
      ruleSet: { forbidden: config.forbidden } as never,
      validate: true,
      // As npm run deps reads this config: type-only imports count.
      tsPreCompilationDeps: true,
    });
    const out = result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

async function clientViolations(): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const result = await cruise(['components', 'dashboard/client'], {
      ruleSet: { forbidden: clientConfig.forbidden } as never,
      validate: true,
      tsPreCompilationDeps: false,
    });
    const out = result.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

describe('the dependency rules', () => {
  // One cruise of the tree for all cases: it takes seconds on a loaded two-core machine.
  let found: string[];
  beforeAll(async () => {
    found = await violations();
  }, 60_000);

  it('refuse a cycle and lib importing a layer above it, and accept imports that run one way', async () => {
    expect(found).toContain('lib-not-upward: lib/upward.ts → app/page.ts');
    expect(found.some((v) => v.startsWith('no-circular: lib/cycle-'))).toBe(true);
    expect(found.filter((v) => v.includes(': worker/main.ts →') || v.startsWith('lib-not-upward: app/'))).toEqual([]);
  });

  it('refuse the runtime importing an application, an application importing its composition, and an example using the shipped application', async () => {
    expect(found).toContain('lib-knows-no-application: lib/knows-app.ts → jobs/app.ts');
    expect(found).toContain('application-not-upward: jobs/upward.ts → worker/main.ts');
    expect(found).toContain('examples-not-to-source-app: examples/mini/jobs.ts → jobs/app.ts');
    // An application on lib/, and a worker composing it, are the intended direction.
    expect(found.filter((v) => v.includes('jobs/app.ts →') || v.includes('examples/mini/jobs.ts → lib/'))).toEqual([]);
  });

  it('refuse the runtime or an application importing the registry of applications, which only a process imports', async () => {
    expect(found).toContain('lib-not-upward: lib/choose.ts → applications.ts');
    expect(found).toContain('application-not-upward: jobs/choose.ts → applications.ts');
    expect(found.filter((v) => v.includes('worker/choose.ts') || v.includes(': applications.ts →'))).toEqual([]);
  });

  it('refuse lib/ or an application importing the dashboard, and the dashboard importing app/; app/ may use it', async () => {
    expect(found).toContain('lib-not-upward: lib/knows-dashboard.ts → dashboard/queues/read.ts');
    expect(found).toContain('application-not-upward: jobs/knows-dashboard.ts → dashboard/client/view.ts');
    expect(found).toContain('dashboard-not-upward: dashboard/upward.ts → app/page.ts');
    expect(found.filter((v) => v.includes('app/dashboard-page.ts →') || v.includes(': dashboard/queues/'))).toEqual([]);
  });

  it('keep the runtime’s tests off the shipped application, its helpers and the registry; its own tests and e2e may use them', async () => {
    expect(found.filter((v) => v.startsWith('runtime-tests-on-the-test-table:'))).toEqual([
      'runtime-tests-on-the-test-table: tests/integration/knows-app.test.ts → jobs/app.ts',
      'runtime-tests-on-the-test-table: tests/unit/knows-helper.test.ts → tests/helpers/shipped-jobs.ts',
      'runtime-tests-on-the-test-table: tests/unit/knows-registry.test.ts → applications.ts',
    ]);
  });

  it('refuse a component importing the dashboard or lib/ anywhere but the client part, a type included', async () => {
    expect(found).toContain('components-only-through-the-client-part: components/safe.tsx → dashboard/queues/read.ts');
    expect(found).toContain('components-only-through-the-client-part: components/past-the-client-part.tsx → lib/ok.ts');
    expect(found.filter((v) => v.includes('components/safe.tsx → dashboard/client/'))).toEqual([]);
  });

  it('keep components to the client-safe part at run time', async () => {
    const found = await clientViolations();
    expect(found).toEqual([
      'client-part-stays-client-safe: dashboard/client/leaky.ts → dashboard/queues/read.ts',
      'client-part-stays-client-safe: dashboard/client/leaky.ts → lib/redis/connection.ts',
      'components-import-only-the-client-part: components/leaky.tsx → dashboard/queues/read.ts',
      'components-import-only-the-client-part: components/past-the-client-part.tsx → lib/ok.ts',
      'components-stay-client-safe: components/leaky.tsx → dashboard/queues/read.ts',
      'components-stay-client-safe: components/leaky.tsx → lib/redis/connection.ts',
    ]);
  });
});
