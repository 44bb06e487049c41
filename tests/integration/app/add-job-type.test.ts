import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');

/*
 * docs/guide.md promises that a job type is three files: its schema and handler, one
 * entry in its group's table, and its test. This test holds the repository to it: in a
 * copy of the tree it writes exactly those three files, runs the one generator the
 * guide names (`npm run docs:handlers`), and then the typecheck and the whole unit
 * project must pass there, with nothing else edited. A count, a list or a map of the
 * types kept anywhere but the table fails it.
 */

/** The three files of a new type, `job-type-probe`, in the maintenance group. */
const HANDLER = 'jobs/maintenance/job-type-probe.ts';
const TABLE = 'jobs/maintenance/jobs.ts';
const TEST = 'tests/unit/app/job-type-probe.test.ts';

const handlerFile = `import { z } from 'zod';
import type { JobHandler } from '@/lib/runtime/handler';
import type { AppStores } from '../app-stores';

export const jobTypeProbeSchema = z.object({ steps: z.number().int().min(1).max(10).default(2) });

/** job-type-probe: reports one progress step per step asked for. */
export function createJobTypeProbeHandler({ logger }: Pick<AppStores, 'logger'>): JobHandler<z.output<typeof jobTypeProbeSchema>, { steps: number }> {
  return async (ctx) => {
    logger.debug({ steps: ctx.data.steps }, 'probing');
    for (let i = 1; i <= ctx.data.steps; i++) await ctx.progress(Math.round((100 * i) / ctx.data.steps), 'probing');
    return { steps: ctx.data.steps };
  };
}
`;

const entry = `  defineJob({
    name: 'job-type-probe',
    group: 'maintenance',
    description: 'Report progress, nothing else.',
    schema: jobTypeProbeSchema,
    example: { steps: 3 },
    attempts: 1,
    backoff: { type: 'fixed', delayMs: 1_000 },
    timeoutMs: 10_000,
    handler: (stores: AppStores) => createJobTypeProbeHandler(stores),
  }),
] as const;
`;

const testFile = `import { describe, expect, it } from 'vitest';
import { createJobTypeProbeHandler } from '@/jobs/maintenance/job-type-probe';
import { silentLogger } from '@/lib/logging/logger';
import { makeJobContext } from '../../helpers/job-context';

describe('job-type-probe', () => {
  it('reports each step', async () => {
    const ctx = makeJobContext('job-type-probe', { steps: 2 });
    expect(await createJobTypeProbeHandler({ logger: silentLogger })(ctx)).toEqual({ steps: 2 });
    expect(ctx.progressReports.map((p) => p.percent)).toEqual([50, 100]);
  });
});
`;

/** The type's entry appended to its group's table, and the import of its handler. */
function withEntry(table: string): string {
  const end = table.lastIndexOf('] as const;');
  if (end < 0) throw new Error(`${TABLE} has no "] as const;" to append to`);
  const imports = "import { createJobTypeProbeHandler, jobTypeProbeSchema } from './job-type-probe';\n";
  return imports + table.slice(0, end) + entry + table.slice(end + '] as const;\n'.length);
}

/** Every file git knows of in the working tree (tracked, or new and not ignored). */
async function treeFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  return stdout.split('\0').filter((f) => f && !f.startsWith('node_modules/'));
}

describe('a job type in three files', () => {
  let copy: string;
  let files: string[];

  beforeAll(async () => {
    copy = mkdtempSync(path.join(tmpdir(), 'bullpen-add-job-type-'));
    files = await treeFiles();
    // The tree's files are copied, not linked: a write in the copy must never reach the tree.
    for (const f of files) cpSync(path.join(root, f), path.join(copy, f), { force: true });
    // node_modules is hard-linked (only tool caches write there), not symlinked: tsc then sees
    // it at the same relative paths as in the tree, so its incremental record of the tree
    // (copied when there is one) still holds and the typecheck redoes only what changed.
    await run('cp', ['-al', path.join(root, 'node_modules'), path.join(copy, 'node_modules')]);
    if (existsSync(path.join(root, 'tsconfig.tsbuildinfo')))
      cpSync(path.join(root, 'tsconfig.tsbuildinfo'), path.join(copy, 'tsconfig.tsbuildinfo'));
  }, 300_000);

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('typechecks and passes the unit tests with only the handler, the table entry and the test written', async () => {
    writeFileSync(path.join(copy, HANDLER), handlerFile);
    writeFileSync(path.join(copy, TABLE), withEntry(readFileSync(path.join(copy, TABLE), 'utf8')));
    writeFileSync(path.join(copy, TEST), testFile);

    const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' };
    const step = async (args: string[]) => {
      const t0 = Date.now();
      try {
        await run('npx', args, { cwd: copy, env, maxBuffer: 64 * 1024 * 1024 });
        console.log(`npx ${args.join(' ')}: ${((Date.now() - t0) / 1_000).toFixed(0)} s`);
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`npx ${args.join(' ')} failed in the copy:\n${(e.stdout ?? '').slice(-6_000)}\n${(e.stderr ?? '').slice(-3_000)}`);
      }
    };
    await step(['npm', 'run', 'docs:handlers']);
    await step(['tsc', '--noEmit']);
    await step(['vitest', 'run', '--project', 'unit']);

    // The generator wrote the new type's row; no other file of the tree changed.
    const changed = files.filter((f) => !readFileSync(path.join(copy, f)).equals(readFileSync(path.join(root, f))));
    expect(changed.sort()).toEqual(['docs/handlers.md', TABLE].sort());
    expect(readFileSync(path.join(copy, 'docs/handlers.md'), 'utf8')).toContain('| `job-type-probe` | `{"steps":3}` |');
  }, 1_500_000);
});
