/**
 * `npm run mutation:lua`: mutation testing of the Lua scripts, which Stryker does not
 * mutate (docs/testing.md#lua-mutation). For each script, one mutant per line: the line
 * deleted, and for a condition (`if`, `elseif`, `while`) the condition negated. Each
 * mutant is written into a sandbox copy of the repository, its folder's bundle (`npm run
 * lua`) rebuilt there, and the tests that reach the script run against it; a failing
 * test kills it. A mutant Redis refuses to compile is not counted (as Stryker's "not
 * compiled"). Scores per script go to reports/mutation/lua.json and stdout.
 *
 *   node --import tsx scripts/mutation/lua-mutants.ts [--folder lib/idempotency/lua]
 *     [--script idem-begin] [--tests tests/integration/a.test.ts,...] [--out lua-dlq.json]
 *
 * Without --folder: the DLQ, idempotency and auth scripts. Without --tests: the test
 * files found by grep (TESTS_BY_FOLDER).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { luaModule } from '../lua-bundle';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Which integration tests reach a folder's scripts: the files whose text matches the
 * pattern, that is, that use the store built on them (found with `grep -l`).
 */
const TESTS_BY_FOLDER: Record<string, RegExp> = {
  // The reconciler's tests reach dlq-failed-job.lua through DeadLetterReconciler alone.
  'lib/dlq/lua': /from '@\/lib\/dlq\/dead-letter-store'|\.dlq\.(record|replay|discard|claimRetry|list|get)\(|DeadLetterReconciler/,
  'lib/idempotency/lua': /\.idempotency\.(begin|complete|fail|get)\(|IdempotencyStore/,
  'dashboard/auth/lua': /RateLimiter|rate-limiter|sign-in-caps|UserStore/,
};

export interface Mutant {
  line: number;
  kind: 'delete' | 'negate';
  original: string;
  replacement: string;
}

/** The mutants of one script's text: each code line deleted, each condition negated. */
export function mutantsOf(source: string): Mutant[] {
  const out: Mutant[] = [];
  source.split('\n').forEach((text, i) => {
    const code = text.trim();
    // Blank lines, comments and the bare block ends: deleting them changes nothing or fails to compile.
    if (code === '' || code.startsWith('--') || /^(end|else|do)\)?$/.test(code)) return;
    out.push({ line: i + 1, kind: 'delete', original: text, replacement: '' });
    const cond = /^(\s*)(if|elseif|while)\s+(.+?)\s+(then|do)\b(.*)$/.exec(text);
    if (cond) {
      const [, indent, keyword, condition, opener, rest] = cond;
      out.push({ line: i + 1, kind: 'negate', original: text, replacement: `${indent}${keyword} not (${condition}) ${opener}${rest}` });
    }
  });
  return out;
}

function apply(source: string, m: Mutant): string {
  const lines = source.split('\n');
  lines[m.line - 1] = m.replacement;
  return lines.join('\n');
}

/** A copy of the repository's files (tracked and new, not ignored) with node_modules linked. */
function makeSandbox(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-lua-mutants-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    const to = path.join(dir, f);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      cpSync(path.join(ROOT, f), to);
    } catch {
      // A file deleted in the working tree but still tracked.
    }
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

interface RunResult {
  ok: boolean;
  output: string;
  timedOut: boolean;
}

function runTests(cwd: string, tests: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'integration', '--bail', '1', ...tests],
      {
        cwd,
        env: { ...process.env, FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The test run and the redis-servers it started: its own process group, by its PID.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // With --bail, vitest exits at the first failure without its other files' afterAll
      // hooks: the redis-servers they started live on, in the run's process group.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
      resolve({ ok: code === 0 && !timedOut, output, timedOut });
    });
  });
}

export function testsFor(folder: string, override: string[] | undefined): string[] {
  if (override) return override;
  const pattern = TESTS_BY_FOLDER[folder];
  if (!pattern) throw new Error(`No tests known for ${folder}: pass --tests`);
  const dir = path.join(ROOT, 'tests/integration');
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.test.ts') && pattern.test(readFileSync(path.join(dir, f), 'utf8')))
    .map((f) => path.join('tests/integration', f))
    .sort();
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

interface ScriptScore {
  script: string;
  tests: string[];
  killed: number;
  timedOut: number;
  survived: number;
  notCompiled: number;
  score: number;
  survivors: Array<{ line: number; kind: string; original: string }>;
}

async function main(argv: string[]): Promise<void> {
  const folders = arg(argv, '--folder')?.split(',') ?? Object.keys(TESTS_BY_FOLDER);
  const only = arg(argv, '--script')?.split(',');
  const override = arg(argv, '--tests')?.split(',');
  const sandbox = makeSandbox();
  const scores: ScriptScore[] = [];
  try {
    for (const folder of folders) {
      const tests = testsFor(folder, override);
      console.log(`${folder}: tests ${tests.join(' ')}`);
      const started = Date.now();
      const baseline = await runTests(sandbox, tests, 15 * 60_000);
      if (!baseline.ok) throw new Error(`${folder}: the tests fail without a mutant:\n${baseline.output.slice(-3_000)}`);
      // A mutant that makes the tests hang is killed by the time limit, as in Stryker.
      const limitMs = Math.max(30_000, 3 * (Date.now() - started));
      const scripts = readdirSync(path.join(ROOT, folder))
        .filter((f) => f.endsWith('.lua') && (!only || only.includes(f.slice(0, -4))))
        .sort();
      for (const file of scripts) {
        const rel = path.join(folder, file);
        const source = readFileSync(path.join(ROOT, rel), 'utf8');
        const s: ScriptScore = { script: rel, tests, killed: 0, timedOut: 0, survived: 0, notCompiled: 0, score: 0, survivors: [] };
        for (const m of mutantsOf(source)) {
          writeFileSync(path.join(sandbox, rel), apply(source, m));
          writeFileSync(path.join(sandbox, folder, 'index.ts'), luaModule(path.join(sandbox, folder), folder.startsWith('dashboard/')));
          const r = await runTests(sandbox, tests, limitMs);
          const verdict = r.timedOut
            ? 'timed out'
            : /Error compiling script|ERR Error compiling/.test(r.output)
              ? 'not compiled'
              : r.ok
                ? 'survived'
                : 'killed';
          if (verdict === 'timed out') s.timedOut++;
          else if (verdict === 'not compiled') s.notCompiled++;
          else if (verdict === 'survived') {
            s.survived++;
            s.survivors.push({ line: m.line, kind: m.kind, original: m.original.trim() });
          } else s.killed++;
          console.log(`  ${rel}:${m.line} ${m.kind}: ${verdict}`);
        }
        writeFileSync(path.join(sandbox, rel), source);
        writeFileSync(path.join(sandbox, folder, 'index.ts'), luaModule(path.join(sandbox, folder), folder.startsWith('dashboard/')));
        const valid = s.killed + s.timedOut + s.survived;
        s.score = valid === 0 ? 100 : (100 * (s.killed + s.timedOut)) / valid;
        scores.push(s);
      }
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
  // Runs of different folders at once each need their own report (reports/mutation/<out>).
  report(scores, arg(argv, '--out') ?? 'lua.json');
}

function report(scores: ScriptScore[], out: string): void {
  const dir = path.join(ROOT, 'reports/mutation');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, path.basename(out)), `${JSON.stringify(scores, null, 2)}\n`);
  console.log('| script | score | killed | timed out | survived | not compiled |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of scores) {
    console.log(`| \`${s.script}\` | ${s.score.toFixed(1)} % | ${s.killed} | ${s.timedOut} | ${s.survived} | ${s.notCompiled} |`);
  }
  for (const s of scores) for (const v of s.survivors) console.log(`survived: ${s.script}:${v.line} ${v.kind}: ${v.original}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
